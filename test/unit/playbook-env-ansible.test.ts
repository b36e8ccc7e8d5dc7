/**
 * The ANSIBLE_* variables of the runner's environment a playbook gets (issue 34 item 5): only
 * ansible-core's own settings, never a secret one, never a URL with a password in it. The
 * third attack found credentials kept in ANSIBLE_* variables under other words reaching every
 * playbook (the deny list knew VAULT, PASSWORD, PASS, SECRET and TOKEN only); the fourth,
 * credentials inside the values of ansible-core's own settings, in shapes other than
 * scheme://user:password@ (its cases below, kept as it wrote them).
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
      // Ordinary values with colons, @ and = in them still pass.
      ANSIBLE_SSH_COMMON_ARGS: '-o ProxyCommand="ssh -W %h:%p jump@bastion" -o ControlPersist=60s',
      ANSIBLE_CACHE_PLUGIN_CONNECTION: "/var/cache/ansible/facts",
      ANSIBLE_ROLES_PATH: "/etc/ansible/roles:/opt/roles",
      ANSIBLE_REMOTE_USER: "deploy",
    };
    const env = playbookEnv(parent, {});
    expect(env).toMatchObject({
      ANSIBLE_CONFIG: "/etc/ansible/runner.cfg",
      ANSIBLE_SSH_ARGS: "-o ControlMaster=auto",
      ANSIBLE_FORKS: "20",
      ANSIBLE_TIMEOUT: "30",
      ANSIBLE_GALAXY_SERVER: "https://galaxy.internal.example/api/",
      ANSIBLE_SSH_COMMON_ARGS: '-o ProxyCommand="ssh -W %h:%p jump@bastion" -o ControlPersist=60s',
      ANSIBLE_CACHE_PLUGIN_CONNECTION: "/var/cache/ansible/facts",
      ANSIBLE_ROLES_PATH: "/etc/ansible/roles:/opt/roles",
      ANSIBLE_REMOTE_USER: "deploy",
    });
    expect(env).not.toHaveProperty("ANSIBLE_INVENTORY");
  });

  it("passes what RTE_PLAYBOOK_ENV_PASS names, and says at start what it keeps back", () => {
    const parent = { ANSIBLE_NET_PASSWD: "p1", ANSIBLE_NET_USERNAME: "admin", ANSIBLE_FORKS: "5", ANSIBLE_VAULT_PASSWORD_FILE: "/v" };
    expect(playbookEnv(parent, {}, ["ANSIBLE_NET_USERNAME"])).toMatchObject({ ANSIBLE_NET_USERNAME: "admin", ANSIBLE_FORKS: "5" });
    expect(ansibleSettingsKeptBack(parent, ["ANSIBLE_NET_USERNAME"])).toEqual(["ANSIBLE_NET_PASSWD", "ANSIBLE_VAULT_PASSWORD_FILE"]);
  });
});

describe("ANSIBLE_* credentials in other shapes (attack 4)", () => {
  it("does not pass ANSIBLE_CACHE_PLUGIN_CONNECTION in the redis cache plugin's host:port:db:password form", () => {
    // community.general.redis cache: _uri is "host:port:db:password" (its documented form).
    const env = playbookEnv(
      { ANSIBLE_CACHE_PLUGIN: "community.general.redis", ANSIBLE_CACHE_PLUGIN_CONNECTION: "redis.internal:6379:0:Redis-S3cret-pw" },
      {},
    );
    expect(env.ANSIBLE_CACHE_PLUGIN_CONNECTION).toBeUndefined();
  });

  it("does not pass a URL whose user part alone is a token (https://TOKEN@host)", () => {
    const env = playbookEnv({ ANSIBLE_GALAXY_SERVER: "https://ghp_R4nd0mT0kenValue123456@galaxy.internal/api/" }, {});
    expect(env.ANSIBLE_GALAXY_SERVER).toBeUndefined();
  });

  it("does not pass a URL with a credential in its query string (?token=, ?access_token=, ?password=)", () => {
    const env = playbookEnv(
      {
        ANSIBLE_GALAXY_SERVER: "https://galaxy.internal/api/?token=T0kenValue987",
        ANSIBLE_INVENTORY: "https://cmdb.internal/inventory?access_token=abcd1234efgh",
        ANSIBLE_CACHE_PLUGIN_CONNECTION: "mongodb://mongo.internal/cache?authSource=admin&password=M0ngoPw",
      },
      {},
    );
    expect(
      Object.keys(env).filter((n) => ["ANSIBLE_GALAXY_SERVER", "ANSIBLE_INVENTORY", "ANSIBLE_CACHE_PLUGIN_CONNECTION"].includes(n)),
    ).toEqual([]);
  });

  it("does not pass a URL with a password that is not the first item of a list (ANSIBLE_INVENTORY=a.yml,https://u:p@host/)", () => {
    const env = playbookEnv({ ANSIBLE_INVENTORY: "hosts.yml,https://svc:Inv3ntoryPw@cmdb.internal/inv" }, {});
    expect(env.ANSIBLE_INVENTORY).toBeUndefined();
  });

  it("does not pass user:password@host without a scheme", () => {
    const env = playbookEnv({ ANSIBLE_CACHE_PLUGIN_CONNECTION: "cacheuser:C4che-Pw@memcached.internal:11211" }, {});
    expect(env.ANSIBLE_CACHE_PLUGIN_CONNECTION).toBeUndefined();
  });

  it("does not pass ANSIBLE_INVENTORY_CACHE_CONNECTION in the redis host:port:db:password form", () => {
    const env = playbookEnv({ ANSIBLE_INVENTORY_CACHE_CONNECTION: "redis.internal:6379:1:Inv-Cache-Pw" }, {});
    expect(env.ANSIBLE_INVENTORY_CACHE_CONNECTION).toBeUndefined();
  });

  it("does not pass ssh arguments that carry a password (ProxyCommand with sshpass -p)", () => {
    const env = playbookEnv({ ANSIBLE_SSH_COMMON_ARGS: `-o ProxyCommand="sshpass -p B4stion-Pw ssh -W %h:%p jump@bastion"` }, {});
    expect(env.ANSIBLE_SSH_COMMON_ARGS).toBeUndefined();
  });

  it("does not pass ANSIBLE_PRIVATE_KEY_FILE, the runner's own ssh key, as it does not pass ANSIBLE_CONNECTION_PASSWORD_FILE", () => {
    // Whatever file it names, ansible reads it as the playbook user: every playbook can print
    // the runner's key, and no masker knows it. The password file of the same connection is kept back.
    const env = playbookEnv(
      { ANSIBLE_CONNECTION_PASSWORD_FILE: "/etc/rte/ssh-password", ANSIBLE_PRIVATE_KEY_FILE: "/etc/rte/id_ed25519" },
      {},
    );
    expect(env.ANSIBLE_CONNECTION_PASSWORD_FILE).toBeUndefined();
    expect(env.ANSIBLE_PRIVATE_KEY_FILE).toBeUndefined();
  });
});
