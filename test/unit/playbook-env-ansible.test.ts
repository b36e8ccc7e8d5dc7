/**
 * The ANSIBLE_* variables of the runner's environment a playbook gets (issue 34 item 5): only
 * ansible-core's own settings, never a secret one, never a URL with a password in it. The
 * third attack found credentials kept in ANSIBLE_* variables under other words reaching every
 * playbook (the deny list knew VAULT, PASSWORD, PASS, SECRET and TOKEN only).
 */
import { describe, expect, it } from "vitest";
import { ansibleSettingsKeptBack, playbookEnv } from "../../server/rte/playbook-command";

describe("the playbook environment and the runner's ANSIBLE_* variables", () => {
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

  it("passes ansible-core's settings, but not one whose value is a URL with a password", () => {
    const parent = {
      ANSIBLE_CONFIG: "/etc/ansible/runner.cfg",
      ANSIBLE_SSH_ARGS: "-o ControlMaster=auto",
      ANSIBLE_FORKS: "20",
      ANSIBLE_TIMEOUT: "30",
      ANSIBLE_GALAXY_SERVER: "https://galaxy.internal.example/api/",
      ANSIBLE_INVENTORY: "https://inv:pw@cmdb.example/ansible",
    };
    const env = playbookEnv(parent, {});
    expect(env).toMatchObject({
      ANSIBLE_CONFIG: "/etc/ansible/runner.cfg",
      ANSIBLE_SSH_ARGS: "-o ControlMaster=auto",
      ANSIBLE_FORKS: "20",
      ANSIBLE_TIMEOUT: "30",
      ANSIBLE_GALAXY_SERVER: "https://galaxy.internal.example/api/",
    });
    expect(env).not.toHaveProperty("ANSIBLE_INVENTORY");
  });

  it("passes what RTE_PLAYBOOK_ENV_PASS names, and says at start what it keeps back", () => {
    const parent = { ANSIBLE_NET_PASSWD: "p1", ANSIBLE_NET_USERNAME: "admin", ANSIBLE_FORKS: "5", ANSIBLE_VAULT_PASSWORD_FILE: "/v" };
    expect(playbookEnv(parent, {}, ["ANSIBLE_NET_USERNAME"])).toMatchObject({ ANSIBLE_NET_USERNAME: "admin", ANSIBLE_FORKS: "5" });
    expect(ansibleSettingsKeptBack(parent, ["ANSIBLE_NET_USERNAME"])).toEqual(["ANSIBLE_NET_PASSWD", "ANSIBLE_VAULT_PASSWORD_FILE"]);
  });
});
