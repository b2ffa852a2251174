// Command controller runs cert-manager's controllers outside a cluster, for the real tier (test/real).
//
// cert-manager's own command (cmd/controller, module controller-binary) is not served by the Go module
// proxy, so this main wires the library's public API instead: the controllers registered in
// pkg/controller's registry (each package registers itself when imported), built from one
// controller.ContextFactory, with the shared informer factories started once every controller has
// registered its informers. No leader election, no metrics or health servers, no webhook: one process
// against --kubeconfig. The defaults are those of the Helm chart (values.yaml) at the pinned version.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	"github.com/cert-manager/cert-manager/pkg/controller"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"

	// The controllers the chart enables by default; each registers itself with controller.Register.
	"github.com/cert-manager/cert-manager/pkg/controller/acmechallenges"
	"github.com/cert-manager/cert-manager/pkg/controller/acmeorders"
	shimingress "github.com/cert-manager/cert-manager/pkg/controller/certificate-shim/ingresses"
	cracme "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/acme"
	crapprover "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	crca "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	crselfsigned "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	crvault "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/vault"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	certificatesmetrics "github.com/cert-manager/cert-manager/pkg/controller/certificates/metrics"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	"github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	"github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	"github.com/cert-manager/cert-manager/pkg/controller/issuers"

	// The issuer implementations the issuers and clusterissuers controllers set up; each registers itself.
	_ "github.com/cert-manager/cert-manager/pkg/issuer/acme"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/vault"
)

// defaultControllers is the set cert-manager enables when none is named (its config defaults at the pinned
// tag: every controller but gateway-shim, listenerset and the experimental CertificateSigningRequest ones),
// less Venafi: the venafi issuer and the certificaterequests-issuer-venafi controller are left out because
// their dependency github.com/Venafi/vcert/v5 v5.13.x is refused by the Go module proxy (403), and the
// newest version it serves, v5.12.3, lacks pkg/venafi/ngts, which cert-manager's venafi client imports.
var defaultControllers = []string{
	issuers.ControllerName, clusterissuers.ControllerName, certificatesmetrics.ControllerName,
	shimingress.ControllerName, acmeorders.ControllerName, acmechallenges.ControllerName,
	cracme.CRControllerName, crapprover.ControllerName, crca.CRControllerName, crselfsigned.CRControllerName,
	crvault.CRControllerName, // certificaterequests-issuer-venafi: see below
	trigger.ControllerName, issuing.ControllerName, keymanager.ControllerName, requestmanager.ControllerName,
	readiness.ControllerName, revisionmanager.ControllerName,
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "cert-manager controller: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := flag.String("kubeconfig", "", "path to the kubeconfig of the cluster (required)")
	namespace := flag.String("namespace", "", "only watch this namespace (empty: all)")
	clusterResourceNamespace := flag.String("cluster-resource-namespace", "kube-system",
		"where a ClusterIssuer's Secrets live (the chart passes its own namespace)")
	controllers := flag.String("controllers", "*", "comma-separated controllers to run; * is the default set")
	workers := flag.Int("concurrent-workers", 5, "workers per controller")
	qps := flag.Float64("kube-api-qps", 20, "client QPS where API Priority and Fairness is off")
	burst := flag.Int("kube-api-burst", 50, "client burst where API Priority and Fairness is off")
	version := flag.Bool("version", false, "print the cert-manager version and exit")
	klog.InitFlags(nil)
	flag.Parse()
	if *version {
		fmt.Println(util.AppVersion)
		return nil
	}
	if *kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required: this build runs outside a cluster")
	}
	enabled, err := selectControllers(*controllers)
	if err != nil {
		return err
	}
	logf.InitLogs()
	defer logf.FlushLogs()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "controller")
	log := logf.FromContext(ctx)

	opts := controller.ContextOptions{
		Kubeconfig:         *kubeconfig,
		KubernetesAPIQPS:   float32(*qps),
		KubernetesAPIBurst: *burst,
		Namespace:          *namespace,
		IssuerOptions: controller.IssuerOptions{
			ClusterResourceNamespace:        *clusterResourceNamespace,
			ClusterIssuerAmbientCredentials: true,
			IssuerAmbientCredentials:        false,
		},
		ACMEOptions: controller.ACMEOptions{
			HTTP01SolverImage:                 "quay.io/jetstack/cert-manager-acmesolver:" + util.AppVersion,
			HTTP01SolverResourceRequestCPU:    resource.MustParse("10m"),
			HTTP01SolverResourceRequestMemory: resource.MustParse("64Mi"),
			HTTP01SolverResourceLimitsCPU:     resource.MustParse("100m"),
			HTTP01SolverResourceLimitsMemory:  resource.MustParse("64Mi"),
			ACMEHTTP01SolverRunAsNonRoot:      true,
			DNS01CheckAuthoritative:           true,
			DNS01CheckRetryPeriod:             10 * time.Second,
		},
		IngressShimOptions: controller.IngressShimOptions{
			DefaultIssuerKind:                 "Issuer",
			DefaultIssuerGroup:                "cert-manager.io",
			DefaultAutoCertificateAnnotations: []string{"kubernetes.io/tls-acme"},
		},
		CertificateOptions: controller.CertificateOptions{
			CopiedAnnotationPrefixes:                 []string{"*", "-kubectl.kubernetes.io/", "-fluxcd.io/", "-argocd.argoproj.io/"},
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
		SchedulerOptions: controller.SchedulerOptions{MaxConcurrentChallenges: 60},
	}
	factory, err := controller.NewContextFactory(ctx, opts)
	if err != nil {
		return fmt.Errorf("building the controller context: %w", err)
	}

	var wg sync.WaitGroup
	errs := make(chan error, len(enabled))
	for _, name := range enabled {
		if *namespace != "" && name == clusterissuers.ControllerName {
			continue // cluster-scoped: not run when scoped to one namespace
		}
		iface, err := controller.Known()[name](factory)
		if err != nil {
			return fmt.Errorf("setting up controller %s: %w", name, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			log.Info("starting controller", "controller", name)
			if err := iface.Run(*workers, ctx); err != nil {
				errs <- fmt.Errorf("controller %s: %w", name, err)
				stop()
			}
		}()
	}

	// Every controller has asked for its informers: start the shared factories they came from.
	shared, err := factory.Build()
	if err != nil {
		return err
	}
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
	if shared.GatewaySolverEnabled {
		shared.GWShared.Start(ctx.Done())
	}
	log.Info("controllers started", "controllers", strings.Join(enabled, ","))
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	return nil
}

// selectControllers resolves a --controllers value: "*" is the default set, "-name" removes one, and any
// other name must be one cert-manager registered.
func selectControllers(spec string) ([]string, error) {
	known := controller.Known()
	set := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
		case item == "*":
			for _, n := range defaultControllers {
				set[n] = true
			}
		case strings.HasPrefix(item, "-"):
			delete(set, item[1:])
		default:
			if known[item] == nil {
				names := make([]string, 0, len(known))
				for n := range known {
					names = append(names, n)
				}
				sort.Strings(names)
				return nil, fmt.Errorf("unknown controller %q (known: %s)", item, strings.Join(names, ", "))
			}
			set[item] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		if known[n] == nil {
			return nil, fmt.Errorf("controller %q is not registered in this build", n)
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}
