#!/usr/bin/env bash
# Builds the test cluster's binaries into .test-data/kubernetes/<version key>/: the control plane
# as one multi-call binary (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and the
# fake node's exec endpoint pod-exec-server; main.go) with a link per program name, kwok (./kwok)
# and external-snapshotter's snapshot controller (./snapshot-controller). Skips a build when its
# binary exists: the key is the pinned versions plus a hash of this script and the go.mod, go.sum
# and Go files, so any change builds afresh. Prints the directory holding the programs on stdout
# (last line); progress goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "go is not installed (expected /usr/local/go/bin/go)" >&2; exit 1; }

version_of() { awk -v m="$1" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$2"; }
kubernetes="$(version_of k8s.io/kubernetes "$here/go.mod")"
etcd="$(version_of go.etcd.io/etcd/server/v3 "$here/go.mod")"
kwok="$(version_of sigs.k8s.io/kwok "$here/kwok/go.mod")"
snapshot_controller="github.com/kubernetes-csi/external-snapshotter/v8/cmd/snapshot-controller"
sources_hash="$(cat "$here"/build.sh "$here"/go.mod "$here"/go.sum "$here"/*.go "$here"/kwok/go.mod "$here"/kwok/go.sum "$here"/kwok/*.go "$here"/snapshot-controller/go.mod "$here"/snapshot-controller/go.sum | sha256sum | cut -c1-12)"
key="kubernetes-${kubernetes}_etcd-${etcd}_kwok-${kwok}_$(go env GOOS)-$(go env GOARCH)_${sources_hash}"
out="${KUBERNETES_TEST_CLUSTER_DIR:-$root/.test-data/kubernetes}/$key"

mkdir -p "$out"
# One build at a time per key: test files started in parallel wait for the first one's binaries.
exec 9>"$out.lock"
flock 9
build() { # <module dir> <binary name> <package> [go build flags…]
  if [[ -x "$out/$2" ]]; then
    echo "kubernetes test cluster: cached $2 ($key)" >&2
    return
  fi
  echo "kubernetes test cluster: building $2 ($key; cold: many minutes on 2 cores)" >&2
  local started
  started=$(date +%s)
  # -trimpath and no VCS stamp keep the build independent of where the repository sits.
  (cd "$1" && go build -trimpath -buildvcs=false -o "$out/$2.partial" "${@:4}" "$3")
  mv "$out/$2.partial" "$out/$2"
  echo "kubernetes test cluster: built $2 in $(($(date +%s) - started)) s" >&2
}
# The version the components report (/version, --version), as Kubernetes' own build stamps it.
minor="${kubernetes#v1.}"
minor="${minor%%.*}"
stamp="k8s.io/component-base/version"
build "$here" kubernetes-test-cluster . -ldflags "-s -w -X $stamp.gitVersion=$kubernetes -X $stamp.gitMajor=1 -X $stamp.gitMinor=$minor -X $stamp.gitTreeState=clean"
build "$here/kwok" kwok . -ldflags "-s -w"
build "$here/snapshot-controller" snapshot-controller "$snapshot_controller" -ldflags "-s -w"
# The volume-snapshot API's CustomResourceDefinitions, from the snapshot client release the
# controller is built with.
crds="$out/volume-snapshot-crds"
if [[ ! -d $crds ]]; then
  client="$(cd "$here/snapshot-controller" && go list -m -f '{{.Dir}}' github.com/kubernetes-csi/external-snapshotter/client/v8)"
  rm -rf "$crds.partial" && mkdir "$crds.partial"
  cp "$client"/config/crd/snapshot.storage.k8s.io_*.yaml "$crds.partial/"
  mv "$crds.partial" "$crds"
fi
for program in etcd kube-apiserver kube-controller-manager kube-scheduler pod-exec-server; do
  ln -sfn kubernetes-test-cluster "$out/$program"
done
echo "$out"
