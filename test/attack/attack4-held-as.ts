// deletedFilesHeld(PID) as this process's user. Usage: attack4-held-as.ts PID
import { deletedFilesHeld } from "../../server/rte/disk-usage";
void deletedFilesHeld(Number(process.argv[2])).then((bytes) => console.log(bytes));
