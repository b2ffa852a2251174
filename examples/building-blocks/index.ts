import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  App,
  CertManager,
  Linkerd,
  Prometheus,
  Traefik,
  meshNamespaceMetadata,
  type MeshSettings,
} from "gke-mesh-platform";

// The building blocks on a cluster you already have, with your own provider: no environment config
// and no Platform. Each block takes narrow typed arguments and the dependencies it needs.
export = () => {
  const config = new pulumi.Config();
  const kubeconfig = config.requireSecret("kubeconfig");
  const provider = new k8s.Provider("cluster", { kubeconfig });

  // cert-manager with trust-manager: Linkerd's trust anchor and issuer come from them.
  const certManager = new CertManager("cert-manager", { trustManager: true, provider });
  const prometheus = new Prometheus("prometheus", { provider });
  const linkerd = new Linkerd("linkerd", { certManager, provider, monitoring: prometheus.monitoring });

  // What the mesh asks of namespaces, pods and ingress controllers, without an environment config.
  // Traefik's RBAC is namespaced: it serves routes in its own namespace and in those passed as
  // routeNamespaces (name -> Namespace resource), none here.
  const mesh: MeshSettings = { kind: "linkerd" };
  const enrolled = meshNamespaceMetadata(mesh);
  new Traefik("traefik", { mesh, certManager, provider, meshReady: linkerd.podPrerequisites });

  const namespace = new k8s.core.v1.Namespace(
    "hello",
    {
      metadata: {
        name: "hello",
        labels: { ...enrolled.labels },
        annotations: { ...enrolled.annotations },
      },
    },
    // Pods in an enrolled namespace need the injector first.
    { provider, dependsOn: [...linkerd.podPrerequisites] },
  );
  const hello = new App("hello", {
    name: "hello",
    namespace: "hello",
    image: config.require("image"),
    port: 8080,
    metricsPath: "/metrics",
    mesh,
    monitoring: prometheus.monitoring,
    provider,
    namespaceResource: namespace,
  });
  return { kubeconfig, app: pulumi.output(`${hello.name}.${hello.namespace}.svc.cluster.local:8080`) };
};
