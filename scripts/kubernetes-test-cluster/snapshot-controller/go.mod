// external-snapshotter's snapshot controller, for the test cluster's volume-snapshot API, built
// as it ships (its cmd/snapshot-controller, the `tool` below) in a module of its own: it needs
// newer client libraries than the control plane's module holds. Every module both share is
// replaced by the control plane's version (and the snapshot client by the release whose CRDs the
// tests install), so the packages they share compile once.
module cairn.dev/kubernetes-test-cluster/snapshot-controller

go 1.26.0

tool github.com/kubernetes-csi/external-snapshotter/v8/cmd/snapshot-controller

require (
	cel.dev/expr v0.25.2 // indirect
	github.com/NYTimes/gziphandler v1.1.1 // indirect
	github.com/antlr4-go/antlr/v4 v4.13.0 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/blang/semver/v4 v4.0.0 // indirect
	github.com/cenkalti/backoff/v5 v5.0.3 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coreos/go-semver v0.3.1 // indirect
	github.com/coreos/go-systemd/v22 v22.5.0 // indirect
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/emicklei/go-restful/v3 v3.13.0 // indirect
	github.com/felixge/httpsnoop v1.0.4 // indirect
	github.com/fsnotify/fsnotify v1.9.0 // indirect
	github.com/fxamacker/cbor/v2 v2.9.2 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-logr/zapr v1.3.0 // indirect
	github.com/go-openapi/jsonpointer v1.0.0 // indirect
	github.com/go-openapi/jsonreference v1.0.0 // indirect
	github.com/go-openapi/swag v0.27.1 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/google/cel-go v0.26.0 // indirect
	github.com/google/gnostic-models v0.7.1 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/grpc-ecosystem/go-grpc-prometheus v1.2.0 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.29.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/kubernetes-csi/csi-lib-utils v0.22.0 // indirect
	github.com/kubernetes-csi/external-snapshotter/client/v8 v8.7.0 // indirect
	github.com/kubernetes-csi/external-snapshotter/v8 v8.4.0 // indirect
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/mailru/easyjson v0.9.0 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	github.com/prometheus/client_golang v1.22.0 // indirect
	github.com/prometheus/client_model v0.6.1 // indirect
	github.com/prometheus/common v0.62.0 // indirect
	github.com/prometheus/procfs v0.15.1 // indirect
	github.com/spf13/cobra v1.9.1 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	github.com/stoewer/go-strcase v1.3.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	go.etcd.io/etcd/api/v3 v3.6.16 // indirect
	go.etcd.io/etcd/client/pkg/v3 v3.6.16 // indirect
	go.etcd.io/etcd/client/v3 v3.6.4 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc v0.60.0 // indirect
	go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp v0.61.0 // indirect
	go.opentelemetry.io/otel v1.45.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace v1.45.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc v1.34.0 // indirect
	go.opentelemetry.io/otel/metric v1.45.0 // indirect
	go.opentelemetry.io/otel/sdk v1.45.0 // indirect
	go.opentelemetry.io/otel/trace v1.45.0 // indirect
	go.opentelemetry.io/proto/otlp v1.11.0 // indirect
	go.uber.org/automaxprocs v1.6.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.0 // indirect
	go.yaml.in/yaml/v2 v2.4.4 // indirect
	go.yaml.in/yaml/v3 v3.0.4 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/exp v0.0.0-20240719175910-8a7402abbf56 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/oauth2 v0.36.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260803160001-6ac0973c030d // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260803160001-6ac0973c030d // indirect
	google.golang.org/grpc v1.83.2 // indirect
	google.golang.org/protobuf v1.36.12-0.20260120151049-f2248ac996af // indirect
	gopkg.in/evanphx/json-patch.v4 v4.13.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
	k8s.io/api v0.37.0 // indirect
	k8s.io/apimachinery v0.37.0 // indirect
	k8s.io/apiserver v0.34.0 // indirect
	k8s.io/client-go v0.37.0 // indirect
	k8s.io/component-base v0.34.12 // indirect
	k8s.io/component-helpers v0.34.0 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
	k8s.io/kube-openapi v0.0.0-20260721132016-d427ff9ee9ad // indirect
	k8s.io/utils v0.0.0-20260626114624-be93311217bd // indirect
	sigs.k8s.io/apiserver-network-proxy/konnectivity-client v0.31.2 // indirect
	sigs.k8s.io/json v0.0.0-20250730193827-2d320260d730 // indirect
	sigs.k8s.io/randfill v1.0.0 // indirect
	sigs.k8s.io/structured-merge-diff/v6 v6.4.2 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)

replace k8s.io/api => k8s.io/api v0.34.12

replace k8s.io/apimachinery => k8s.io/apimachinery v0.34.12

replace k8s.io/apiserver => k8s.io/apiserver v0.34.12

replace k8s.io/client-go => k8s.io/client-go v0.34.12

replace k8s.io/component-base => k8s.io/component-base v0.34.12

replace k8s.io/component-helpers => k8s.io/component-helpers v0.34.12

replace cel.dev/expr => cel.dev/expr v0.25.2

replace cloud.google.com/go/compute/metadata => cloud.google.com/go/compute/metadata v0.9.0

replace github.com/GoogleCloudPlatform/opentelemetry-operations-go/detectors/gcp => github.com/GoogleCloudPlatform/opentelemetry-operations-go/detectors/gcp v1.33.0

replace github.com/cncf/xds/go => github.com/cncf/xds/go v0.0.0-20260202195803-dba9d589def2

replace github.com/emicklei/go-restful/v3 => github.com/emicklei/go-restful/v3 v3.12.2

replace github.com/envoyproxy/go-control-plane => github.com/envoyproxy/go-control-plane v0.14.0

replace github.com/envoyproxy/go-control-plane/envoy => github.com/envoyproxy/go-control-plane/envoy v1.37.0

replace github.com/envoyproxy/protoc-gen-validate => github.com/envoyproxy/protoc-gen-validate v1.3.3

replace github.com/fxamacker/cbor/v2 => github.com/fxamacker/cbor/v2 v2.9.0

replace github.com/go-jose/go-jose/v4 => github.com/go-jose/go-jose/v4 v4.1.4

replace github.com/go-logr/logr => github.com/go-logr/logr v1.4.4

replace github.com/go-openapi/jsonpointer => github.com/go-openapi/jsonpointer v0.21.0

replace github.com/go-openapi/jsonreference => github.com/go-openapi/jsonreference v0.21.0

replace github.com/go-openapi/swag => github.com/go-openapi/swag v0.23.0

replace github.com/godbus/dbus/v5 => github.com/godbus/dbus/v5 v5.1.0

replace github.com/golang/glog => github.com/golang/glog v1.2.5

replace github.com/google/gnostic-models => github.com/google/gnostic-models v0.7.0

replace github.com/grpc-ecosystem/grpc-gateway/v2 => github.com/grpc-ecosystem/grpc-gateway/v2 v2.29.0

replace github.com/klauspost/compress => github.com/klauspost/compress v1.18.7

replace github.com/mailru/easyjson => github.com/mailru/easyjson v0.7.7

replace github.com/pmezard/go-difflib => github.com/pmezard/go-difflib v1.0.0

replace github.com/prometheus/client_model => github.com/prometheus/client_model v0.6.2

replace github.com/sirupsen/logrus => github.com/sirupsen/logrus v1.9.4

replace github.com/spf13/cobra => github.com/spf13/cobra v1.10.2

replace github.com/spiffe/go-spiffe/v2 => github.com/spiffe/go-spiffe/v2 v2.7.0

replace github.com/yuin/goldmark => github.com/yuin/goldmark v1.4.13

replace go.etcd.io/bbolt => go.etcd.io/bbolt v1.4.3

replace go.etcd.io/etcd/api/v3 => go.etcd.io/etcd/api/v3 v3.6.16

replace go.etcd.io/etcd/client/pkg/v3 => go.etcd.io/etcd/client/pkg/v3 v3.6.16

replace go.etcd.io/etcd/client/v3 => go.etcd.io/etcd/client/v3 v3.6.16

replace go.etcd.io/etcd/pkg/v3 => go.etcd.io/etcd/pkg/v3 v3.6.16

replace go.etcd.io/etcd/server/v3 => go.etcd.io/etcd/server/v3 v3.6.16

replace go.opentelemetry.io/contrib/detectors/gcp => go.opentelemetry.io/contrib/detectors/gcp v1.44.0

replace go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp => go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp v0.61.0

replace go.opentelemetry.io/otel => go.opentelemetry.io/otel v1.45.0

replace go.opentelemetry.io/otel/exporters/otlp/otlptrace => go.opentelemetry.io/otel/exporters/otlp/otlptrace v1.45.0

replace go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc => go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc v1.45.0

replace go.opentelemetry.io/otel/metric => go.opentelemetry.io/otel/metric v1.45.0

replace go.opentelemetry.io/otel/sdk => go.opentelemetry.io/otel/sdk v1.45.0

replace go.opentelemetry.io/otel/sdk/metric => go.opentelemetry.io/otel/sdk/metric v1.45.0

replace go.opentelemetry.io/otel/trace => go.opentelemetry.io/otel/trace v1.45.0

replace go.opentelemetry.io/proto/otlp => go.opentelemetry.io/proto/otlp v1.11.0

replace go.yaml.in/yaml/v2 => go.yaml.in/yaml/v2 v2.4.2

replace golang.org/x/crypto => golang.org/x/crypto v0.58.0

replace golang.org/x/mod => golang.org/x/mod v0.41.0

replace golang.org/x/net => golang.org/x/net v0.61.0

replace golang.org/x/sync => golang.org/x/sync v0.24.0

replace golang.org/x/sys => golang.org/x/sys v0.49.0

replace golang.org/x/term => golang.org/x/term v0.47.0

replace golang.org/x/text => golang.org/x/text v0.43.0

replace golang.org/x/time => golang.org/x/time v0.9.0

replace golang.org/x/tools => golang.org/x/tools v0.51.0

replace google.golang.org/genproto/googleapis/api => google.golang.org/genproto/googleapis/api v0.0.0-20260803160001-6ac0973c030d

replace google.golang.org/genproto/googleapis/rpc => google.golang.org/genproto/googleapis/rpc v0.0.0-20260803160001-6ac0973c030d

replace google.golang.org/grpc => google.golang.org/grpc v1.83.2

replace gopkg.in/evanphx/json-patch.v4 => gopkg.in/evanphx/json-patch.v4 v4.12.0

replace k8s.io/apiextensions-apiserver => k8s.io/apiextensions-apiserver v0.34.12

replace k8s.io/gengo/v2 => k8s.io/gengo/v2 v2.0.0-20250604051438-85fd79dbfd9f

replace k8s.io/klog/v2 => k8s.io/klog/v2 v2.130.1

replace k8s.io/kube-openapi => k8s.io/kube-openapi v0.0.0-20250710124328-f3f2b991d03b

replace k8s.io/utils => k8s.io/utils v0.0.0-20250604170112-4c0f3b243397

replace sigs.k8s.io/json => sigs.k8s.io/json v0.0.0-20241014173422-cfa47c3a1cc8

replace sigs.k8s.io/structured-merge-diff/v6 => sigs.k8s.io/structured-merge-diff/v6 v6.3.0

replace github.com/kubernetes-csi/external-snapshotter/client/v8 => github.com/kubernetes-csi/external-snapshotter/client/v8 v8.4.0
