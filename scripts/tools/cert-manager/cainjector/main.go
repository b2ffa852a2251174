// Command cainjector runs cert-manager's CA injector outside a cluster, for the real tier (test/real).
//
// cert-manager's own command (cmd/cainjector, module cainjector-binary) is not served by the Go module
// proxy, so this main wires the library's public API instead: a controller-runtime manager with the
// schemes of the injectable kinds, and pkg/controller/cainjector's reconcilers registered on it
// (RegisterAllInjectors) for every injectable kind and both CA sources, as the Helm chart runs it by
// default. No leader election, no metrics or health servers: one process against --kubeconfig.
package main

import (
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	apireg "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cmscheme "github.com/cert-manager/cert-manager/pkg/client/clientset/versioned/scheme"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "cert-manager cainjector: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	// controller-runtime registers --kubeconfig on the command line itself (pkg/client/config).
	if flag.Lookup("kubeconfig") == nil {
		flag.String("kubeconfig", "", "path to the kubeconfig of the cluster (required)")
	}
	namespace := flag.String("namespace", "", "only watch this namespace (empty: all)")
	certificates := flag.Bool("enable-certificates-data-source", true,
		"inject from the Secret of a Certificate named by cert-manager.io/inject-ca-from")
	version := flag.Bool("version", false, "print the cert-manager version and exit")
	klog.InitFlags(nil)
	flag.Parse()
	if *version {
		fmt.Println(util.AppVersion)
		return nil
	}
	kubeconfig := flag.Lookup("kubeconfig").Value.String()
	if kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required: this build runs outside a cluster")
	}
	logf.InitLogs()
	defer logf.FlushLogs()
	ctrl.SetLogger(logf.Log)

	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("reading %s: %w", kubeconfig, err)
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(kscheme.AddToScheme(scheme))
	utilruntime.Must(cmscheme.AddToScheme(scheme))
	utilruntime.Must(apiext.AddToScheme(scheme))
	utilruntime.Must(apireg.AddToScheme(scheme))

	cacheOptions := cache.Options{}
	if *namespace != "" {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{*namespace: {}}
	}
	mgr, err := ctrl.NewManager(util.RestConfigWithUserAgent(config, "cainjector"), ctrl.Options{
		Scheme: scheme,
		Cache:  cacheOptions,
		// Secrets are watched as metadata only (RegisterAllInjectors); their data is read from the API server.
		Client:                 client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
		LeaderElection:         false,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	ctx := ctrl.SetupSignalHandler()
	if err := cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		Namespace:                    *namespace,
		EnableCertificatesDataSource: *certificates,
		EnabledReconcilersFor: map[string]bool{
			cainjector.MutatingWebhookConfigurationName:   true,
			cainjector.ValidatingWebhookConfigurationName: true,
			cainjector.APIServiceName:                     true,
			cainjector.CustomResourceDefinitionName:       true,
		},
	}); err != nil {
		return fmt.Errorf("registering the injectors: %w", err)
	}
	return mgr.Start(ctx)
}
