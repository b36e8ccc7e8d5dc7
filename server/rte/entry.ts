import { runRte } from "./main";

void runRte();
