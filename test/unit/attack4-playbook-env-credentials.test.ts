/**
 * Fourth attack on issue 34, item 5: ANSIBLE_* settings of ansible-core whose value holds a
 * credential in a shape other than scheme://user:password@ pass to every playbook.
 */
import { describe, expect, it } from "vitest";
import { playbookEnv } from "../../server/rte/playbook-command";

describe("attack 4: ANSIBLE_* credentials in other shapes", () => {
  it("does not pass ANSIBLE_CACHE_PLUGIN_CONNECTION in the redis cache plugin's host:port:db:password form", () => {
    // community.general.redis cache: _uri is "host:port:db:password" (its documented form).
    const env = playbookEnv({ ANSIBLE_CACHE_PLUGIN: "community.general.redis", ANSIBLE_CACHE_PLUGIN_CONNECTION: "redis.internal:6379:0:Redis-S3cret-pw" }, {});
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
    expect(Object.keys(env).filter((n) => ["ANSIBLE_GALAXY_SERVER", "ANSIBLE_INVENTORY", "ANSIBLE_CACHE_PLUGIN_CONNECTION"].includes(n))).toEqual([]);
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
    const env = playbookEnv({ ANSIBLE_CONNECTION_PASSWORD_FILE: "/etc/rte/ssh-password", ANSIBLE_PRIVATE_KEY_FILE: "/etc/rte/id_ed25519" }, {});
    expect(env.ANSIBLE_CONNECTION_PASSWORD_FILE).toBeUndefined();
    expect(env.ANSIBLE_PRIVATE_KEY_FILE).toBeUndefined();
  });
});
