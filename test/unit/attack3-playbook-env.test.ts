/**
 * Third attack on issue 34 item 5. The issue asks for an allow list with "ANSIBLE_* the runner
 * sets"; playbookEnv passes every ANSIBLE_* of the RTE's environment except names holding the
 * words VAULT, PASSWORD, PASS, SECRET or TOKEN (split on "_"). Credentials an operator keeps in
 * ANSIBLE_* variables under other words still reach every playbook.
 */
import { describe, expect, it } from "vitest";
import { playbookEnv } from "../../server/rte/playbook-command";

describe("attack3: the playbook environment and ANSIBLE_* credentials", () => {
  it("does not pass ANSIBLE_* credentials named with other words (PASSWD, APIKEY, API_KEY, CREDENTIALS, AUTHTOKEN, PASSWORDS, plural or joined words)", () => {
    const parent = {
      PATH: "/usr/bin",
      ANSIBLE_NET_PASSWD: "p1",
      ANSIBLE_DNS_APIKEY: "p2",
      ANSIBLE_CLOUD_API_KEY: "p3",
      ANSIBLE_REGISTRY_CREDENTIALS: "user:p4",
      ANSIBLE_SPLUNK_AUTHTOKEN: "p5",
      ANSIBLE_SERVICE_PASSWORDS: "p6",
      ANSIBLE_DB_PASSPHRASE: "p7",
      ANSIBLE_GALAXY_SERVER_HUB_URL: "https://user:p8@hub.example.com/api/",
    };
    const env = playbookEnv(parent, {});
    const leaked = Object.keys(parent).filter((name) => name.startsWith("ANSIBLE_") && name in env);
    expect(leaked).toEqual([]);
  });
});
