/**
 * The Kubernetes manifests parse and keep the runtime-environment deployment rules (no
 * container engine runs here, so the images are not built in tests).
 */
import fs from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";

const DIR = path.resolve(import.meta.dirname, "../../deploy/kubernetes");

function docs(file: string): any[] {
  const parsed = parseAllDocuments(fs.readFileSync(path.join(DIR, file), "utf8"));
  for (const doc of parsed) expect(doc.errors, file).toEqual([]);
  return parsed.map((d) => d.toJS());
}

describe("deploy/kubernetes/rte.yaml", () => {
  const statefulSet = docs("rte.yaml").find((d) => d.kind === "StatefulSet");
  const pod = statefulSet.spec.template.spec;
  const container = pod.containers[0];
  const env = Object.fromEntries(container.env.map((e: any) => [e.name, e]));

  it("gives the token through a secretKeyRef, never argv", () => {
    expect(env.RTE_TOKEN.valueFrom.secretKeyRef.key).toBe("token");
    expect(JSON.stringify(container.command)).not.toContain("pfr_");
  });

  it("takes the instance id from the pod name and keeps the spool on a volume", () => {
    expect(env.RTE_INSTANCE_ID.valueFrom.fieldRef.fieldPath).toBe("metadata.name");
    expect(container.volumeMounts.map((m: any) => m.mountPath)).toContain("/var/lib/playform/spool");
    expect(statefulSet.spec.volumeClaimTemplates[0].metadata.name).toBe("spool");
  });

  it("drains within the grace period, mounts no service account token, starts with the executable", () => {
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(Number(env.RTE_DRAIN_SECONDS.value));
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.imagePullPolicy).toBe("Always");
    expect(container.command).toEqual(["node", "dist/rte.js"]);
  });

  it("is scraped by Prometheus on its health port", () => {
    const annotations = statefulSet.spec.template.metadata.annotations;
    expect(annotations["prometheus.io/scrape"]).toBe("true");
    expect(annotations["prometheus.io/path"]).toBe("/metrics");
    expect(container.ports).toContainEqual({ name: "health", containerPort: Number(annotations["prometheus.io/port"]) });
  });

  it("runs as root only to start playbooks as another user: no escalation, every other capability dropped", () => {
    expect(container.securityContext.runAsUser).toBe(0);
    expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
    expect(container.securityContext.capabilities.drop).toEqual(["ALL"]);
    expect([...container.securityContext.capabilities.add].sort()).toEqual(["CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"]);
    expect(env.RTE_PLAYBOOK_USER).toBeUndefined(); // the default, playform-run, created in the image
  });
});

describe("deploy/kubernetes/app.yaml", () => {
  const deployment = docs("app.yaml").find((d) => d.kind === "Deployment");
  const container = deployment.spec.template.spec.containers[0];

  it("runs several nodes without a local RTE, with health probes", () => {
    expect(deployment.spec.replicas).toBeGreaterThan(1);
    expect(container.env).toContainEqual({ name: "PLAYFORM_LOCAL_RTE", value: "false" });
    expect(container.readinessProbe.httpGet.path).toBe("/api/ready");
    expect(container.livenessProbe.httpGet.path).toBe("/api/live");
  });

  it("is scraped by Prometheus on its HTTP port", () => {
    const annotations = deployment.spec.template.metadata.annotations;
    expect(annotations["prometheus.io/scrape"]).toBe("true");
    expect(annotations["prometheus.io/path"]).toBe("/metrics");
    expect(container.ports).toContainEqual({ name: "http", containerPort: Number(annotations["prometheus.io/port"]) });
  });
});

describe("deploy/kubernetes/app-inbound-sidecar.yaml and deploy/compose.inbound.yaml", () => {
  const statefulSet = docs("app-inbound-sidecar.yaml").find((d) => d.kind === "StatefulSet");
  const pod = statefulSet.spec.template.spec;
  const app = pod.containers.find((c: any) => c.name === "app");
  const rte = pod.containers.find((c: any) => c.name === "rte");
  const env = Object.fromEntries(rte.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));

  it("runs one app node (the sidecar is reachable only on its pod's loopback) without a local RTE", () => {
    expect(statefulSet.spec.replicas).toBe(1);
    expect(app.env).toContainEqual({ name: "PLAYFORM_LOCAL_RTE", value: "false" });
    expect(app.securityContext.runAsNonRoot).toBe(true);
  });

  it("starts the sidecar inbound over https on the pod's loopback, joining through the app beside it", () => {
    expect(env.RTE_MODE).toBe("inbound");
    const address = new URL(env.RTE_ADDRESS);
    expect(address.protocol).toBe("https:");
    expect(address.hostname).toBe("127.0.0.1");
    expect(Number(address.port)).toBe(Number(env.PORT));
    expect(new URL(env.APP_URL).port).toBe(String(app.ports[0].containerPort));
    expect(env.RTE_TOKEN).toBeUndefined(); // it joins; the token is kept on the state volume
  });

  it("keeps the certificate, token and spool on a volume, and has no readiness probe that would wait for the approval", () => {
    const mounts = rte.volumeMounts.map((m: any) => m.mountPath);
    expect(mounts).toEqual(expect.arrayContaining(["/var/lib/playform/spool", "/var/lib/playform/state"]));
    expect(statefulSet.spec.volumeClaimTemplates[0].metadata.name).toBe(rte.volumeMounts[0].name);
    expect(rte.readinessProbe).toBeUndefined();
    expect(rte.livenessProbe.httpGet).toEqual({ path: "/live", port: "rte", scheme: "HTTPS" });
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(Number(env.RTE_DRAIN_SECONDS));
  });

  it("gives the sidecar root only to run playbooks as another user, and exposes only the app's port", () => {
    expect(rte.securityContext.allowPrivilegeEscalation).toBe(false);
    expect(rte.securityContext.capabilities.drop).toEqual(["ALL"]);
    const service = docs("app-inbound-sidecar.yaml").find((d) => d.kind === "Service");
    expect(service.spec.ports.map((p: any) => p.targetPort)).toEqual(["http"]);
  });

  it("in compose, shares the app's network namespace and listens inbound on its loopback", () => {
    const compose = parseAllDocuments(fs.readFileSync(path.resolve(DIR, "../compose.inbound.yaml"), "utf8"))[0]!.toJS();
    const service = compose.services.rte;
    expect(service.network_mode).toBe("service:app");
    expect(service.environment.RTE_MODE).toBe("inbound");
    expect(new URL(service.environment.RTE_ADDRESS).hostname).toBe("127.0.0.1");
    expect(service.volumes).toEqual(expect.arrayContaining(["rte-state:/var/lib/playform/state", "rte-spool:/var/lib/playform/spool"]));
  });
});
