#!/usr/bin/env bash
# Builds the real tier's tools (test/real) from the Go module proxy, checkov from PyPI and the Google provider from git, into
# $HOME/.cache/gke-mesh-platform/bin (TOOLS_CACHE overrides the cache folder), outside the work tree.
#
#   bash scripts/tools/build.sh [tool ...]     # no tool: every tool, in the order below
#
# Each Go tool is built from a wrapper module of our own in scripts/tools/<module>/ (go.mod, go.sum and a
# tools.go or a small main.go). The module is copied into the cache and built there, so the work tree never
# gets build output; files generated at build time (the Kubernetes provider's embedded schema) are made in
# that copy too. A tool whose binary at its pinned version is already in the cache is skipped. One line per
# tool on stdout; each build's output goes to the cache's logs/ folder. Needs Go (1.26) and, for checkov,
# python3 with venv. On 2 cores with other work running, each Go build took 1 to 15 minutes with a warm
# module cache. A fresh machine downloads about 6 GB of modules first, and the Go build cache grows by about 18 GB
# for all of them (measured 2026-11-26).
# See ../shared/reference/real-cluster.md for where each recipe comes from.
set -euo pipefail

# Pinned versions, one line each.
KUBERNETES_VERSION=v1.36.3 # the highest minor the platform supports (lib/versions/kubernetes.ts), newest 1.36 patch on the proxy
KUBERNETES_LOWEST_VERSION=v1.34.4 # the lowest supported minor, so the API server runs at both ends of the range
ETCD_VERSION=v3.6.5 # the etcd 3.6 line Kubernetes 1.34 to 1.36 are released with; the release real-cluster.md's recipe was checked with
CERT_MANAGER_VERSION=v1.21.2 # the 1.21 line of the pinned chart (v1.21.1), its newest patch on the proxy
TRUST_MANAGER_VERSION=v0.24.0 # the pinned chart's version (the proxy also serves v0.25.0; v0.26.0 is refused)
PULUMI_VERSION=v3.274.1 # the Pulumi CLI the tier runs; pkg/v3 v3.270.0 (the SDK's floor) is not on the proxy
PULUMI_KUBERNETES_VERSION=4.25.0 # the provider version that module pseudo-version is (tag v4.25.0); @pulumi/kubernetes asks for 4.34.2, which the proxy does not have
PULUMI_KUBERNETES_MODULE_VERSION=v4.0.0-20260115033456-f47bc2d6f199 # github.com/pulumi/pulumi-kubernetes/provider/v4 at tag v4.25.0, the only form the proxy serves
PULUMI_LANGUAGE_NODEJS_VERSION=v3.68.0 # the newest sdk/v3 that still holds nodejs/cmd/pulumi-language-nodejs; its own module is refused by the proxy
KUBE_SCORE_VERSION=v1.20.0 # kube-score's newest release (2025-04-28), the only version the proxy lists
CHECKOV_VERSION=3.3.30 # checkov on PyPI, pinned for repeatable findings
# The Google provider: the proxy refuses github.com/pulumi/pulumi-gcp/provider/v9 (and v6 to v8: 403), so it is built
# from git (pulumi-gcp at the tag, terraform-provider-google-beta at the commit its `upstream` submodule names, with
# its patches/ applied). @pulumi/gcp asks for 9.37.0; the newest tag the git source here holds is v9.35.0.
PULUMI_GCP_VERSION=9.35.0 # the provider version the tag is (v9.35.0), as its binary's name carries it
# istioctl: the platform pins Istio 1.30.3 (lib/versions/istio.ts), but the proxy refuses its commit 56df41f63e51
# (v0.0.0-20260713165634-56df41f63e51: 403, checked again 2026-11-26). Of the three istio.io/istio commits it serves,
# 9739e10eb9d7 (2026-08-26) is on release-1.30 after 1.30.3 (its VERSION says 1.30; it asks for istio.io/api
# v1.30.4-0.20260824163423-69099aec2678), but the proxy refuses five of its requirements (istio.io/api,
# istio.io/client-go, go-control-plane's envoy and contrib, agentgateway's api: 403), so it cannot be built;
# eed52ebb66ad (2026-08-27) is 1.31 (istio.io/api v1.31.0-rc.0.*). So b01690e6db7d, the closest to the 1.30 line that
# builds: on master 48 commits after 1.30.0-alpha.1 and 10 days after release-1.30 branched (2026-04-13), so 1.31
# development (its VERSION file says 1.31; Istio's Makefile.core.mk names such a build 1.31-dev). docs/testing.md
# says how its analyzers differ from 1.30.3's.
ISTIO_VERSION=1.31-dev-b01690e6db7d # the istioctl built, as its binary is named and `istioctl version` prints it
ISTIO_MODULE_VERSION=v0.0.0-20260423205519-b01690e6db7d # istio.io/istio at commit b01690e6db7d (see above)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${TOOLS_CACHE:-$HOME/.cache/gke-mesh-platform}
bin=$cache/bin
work=$cache/build
logs=$cache/logs
mkdir -p "$bin" "$work" "$logs"
export CGO_ENABLED=${CGO_ENABLED:-0}
# Two packages compile at once: the machine has two cores and the linker of kube-apiserver alone takes GBs.
export GOFLAGS="${GOFLAGS:-} -p=${TOOLS_BUILD_JOBS:-2} -buildvcs=false"
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

all_tools=(
  etcd kube-apiserver kube-controller-manager kubectl kube-apiserver-lowest kube-controller-manager-lowest
  cert-manager-controller cert-manager-cainjector trust-manager
  pulumi pulumi-resource-kubernetes pulumi-language-nodejs
  kube-score checkov istioctl pulumi-resource-gcp
)

say() { printf '%-32s %s\n' "$1" "$2"; }

# module_copy <module folder under scripts/tools> <build name>: a fresh copy of a wrapper module in the cache.
module_copy() {
  local dst=$work/$2
  rm -rf "$dst"
  mkdir -p "$dst"
  cp -R "$root/$1/." "$dst/"
  echo "$dst"
}

# module_time <module>@<version>: the module's commit time, UTC, as Kubernetes stamps buildDate.
module_time() {
  go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' "$1"
}

# go_build <tool> <version> <module dir> <package> [ldflags]: builds one command into $bin/<tool>-<version>.
go_build() {
  local tool=$1 version=$2 dir=$3 pkg=$4 ldflags=${5:-} out=$bin/$1-$2 log=$logs/$1-$2.log start=$SECONDS
  if ! (cd "$dir" && go build -mod=mod -trimpath -ldflags "-s -w $ldflags" -o "$out.partial" "$pkg") >>"$log" 2>&1; then
    rm -f "$out.partial"
    say "$tool" "$version: FAILED after $((SECONDS - start)) s (log: $log)"
    tail -n 20 "$log" >&2
    return 1
  fi
  mv "$out.partial" "$out"
  say "$tool" "$version: built in $((SECONDS - start)) s, $(($(stat -c %s "$out") / 1048576)) MB: $out"
}

# prepare_failed <tool> <version> <log>: says a wrapper module could not be prepared (set -e does not apply in
# a function called from a condition, so each preparing step checks its own result).
prepare_failed() {
  say "$1" "$2: FAILED preparing its module (log: $3)"
  tail -n 20 "$3" >&2
  return 1
}

# built <tool> <version>: true (and says so) when the binary is already in the cache.
built() {
  if [ -x "$bin/$1-$2" ]; then
    say "$1" "$2: already built: $bin/$1-$2"
    return 0
  fi
  : >"$logs/$1-$2.log"
  return 1
}

# --- Kubernetes -------------------------------------------------------------------------------------------
# k8s.io/kubernetes lists each of its staging modules (k8s.io/api, client-go, ...) as v0.0.0 and replaces it
# with a local folder; a replace only applies in the main module, so ours says where each one is on the proxy:
# v0.<minor>.<patch> of the same release, or the nearest lower patch where that one is not served
# (k8s.io/sample-cli-plugin v0.36.3 is refused).
kubernetes_module() {
  local version=$1 dir=$2 gomod staging minor patch m v p
  (cd "$dir" && grep -q "k8s.io/kubernetes $version\$" go.mod) && return 0
  echo "retargeting $dir/go.mod to k8s.io/kubernetes $version" >>"$logs/kubernetes-module-$version.log"
  gomod=$(cd "$dir" && go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
  [ -f "$gomod" ] || { echo "k8s.io/kubernetes@$version: no go.mod from the proxy" >&2; return 1; }
  staging=$(sed -n '/^replace (/,/^)/p' "$gomod" | awk '/=> \.\/staging/ {print $1}')
  minor=$(echo "$version" | cut -d. -f2)
  patch=$(echo "$version" | cut -d. -f3)
  local args=(-require="k8s.io/kubernetes@$version")
  # From scratch, so that every other requirement is the one this release of Kubernetes asks for (a newer
  # one kept from another release can break the build: k8s.io/kubernetes v1.34.4 with v1.36.3's cgroups).
  printf 'module %s\n\ngo 1.26\n' "$(sed -n 's/^module //p' "$dir/go.mod")" >"$dir/go.mod.new"
  mv "$dir/go.mod.new" "$dir/go.mod"
  rm -f "$dir/go.sum"
  for m in $staging; do
    v=
    for ((p = patch; p >= 0; p--)); do
      if go list -m "$m@v0.$minor.$p" >/dev/null 2>&1; then
        v=v0.$minor.$p
        break
      fi
    done
    [ -n "$v" ] || { echo "no $m v0.$minor.x on the proxy" >&2; return 1; }
    args+=(-replace="$m=$m@$v")
  done
  (cd "$dir" && go mod edit "${args[@]}" && go mod tidy) >>"$logs/kubernetes-module-$version.log" 2>&1
}

# The version the commands print (k8s.io/component-base/version and client-go's copy), as hack/lib/version.sh sets it.
kubernetes_ldflags() {
  local version=$1 date x
  date=$(module_time "k8s.io/kubernetes@$version")
  local major minor
  major=$(echo "${version#v}" | cut -d. -f1)
  minor=$(echo "$version" | cut -d. -f2)
  for x in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    printf ' -X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean -X %s.buildDate=%s' \
      "$x" "$version" "$x" "$major" "$x" "$minor" "$x" "$x" "$date"
  done
}

build_kubernetes_command() {
  local tool=$1 command=$2 version=$3 dir
  built "$tool" "$version" && return 0
  dir=$(module_copy kubernetes "kubernetes-$version")
  kubernetes_module "$version" "$dir" ||
    prepare_failed "$tool" "$version" "$logs/kubernetes-module-$version.log" || return 1
  go_build "$tool" "$version" "$dir" "k8s.io/kubernetes/cmd/$command" "$(kubernetes_ldflags "$version")"
}

build_etcd() {
  built etcd "$ETCD_VERSION" && return 0
  local dir
  dir=$(module_copy etcd "etcd-$ETCD_VERSION")
  pin_module "$dir" go.etcd.io/etcd/server/v3 "$ETCD_VERSION" ||
    prepare_failed etcd "$ETCD_VERSION" "$logs/etcd-$ETCD_VERSION.log" || return 1
  go_build etcd "$ETCD_VERSION" "$dir" .
}

# pin_module <dir> <module> <version>: the copy of a wrapper module requires <module> at <version>. The
# committed go.mod and go.sum are for the pinned version, so this does nothing until the version is bumped;
# then `go get` resolves the new version in the copy (checked against the checksum database) and says to
# commit the result.
pin_module() {
  local dir=$1 module=$2 version=$3
  (cd "$dir" && grep -Eq "^(require )?[[:space:]]*$module $version( // indirect)?$" go.mod) && return 0
  (cd "$dir" && go get "$module@$version") >>"$logs/$(basename "$dir").log" 2>&1 || return 1
  echo "note: built with $module $version, which scripts/tools does not pin yet: copy $dir/go.mod and go.sum back" >&2
}

# --- cert-manager and trust-manager -----------------------------------------------------------------------------
# cert-manager's commands live in their own modules (cmd/controller, cmd/cainjector), which the proxy does not
# serve: scripts/tools/cert-manager holds mains of our own over its library packages (see each main.go).
build_cert_manager() {
  local tool=cert-manager-$1 dir
  built "$tool" "$CERT_MANAGER_VERSION" && return 0
  dir=$(module_copy cert-manager "cert-manager-$CERT_MANAGER_VERSION")
  pin_module "$dir" github.com/cert-manager/cert-manager "$CERT_MANAGER_VERSION" ||
    prepare_failed "$tool" "$CERT_MANAGER_VERSION" "$logs/cert-manager-$CERT_MANAGER_VERSION.log" || return 1
  go_build "$tool" "$CERT_MANAGER_VERSION" "$dir" "./$1" \
    "-X github.com/cert-manager/cert-manager/pkg/util.AppVersion=$CERT_MANAGER_VERSION"
}

build_trust_manager() {
  built trust-manager "$TRUST_MANAGER_VERSION" && return 0
  local dir
  dir=$(module_copy trust-manager "trust-manager-$TRUST_MANAGER_VERSION")
  pin_module "$dir" github.com/cert-manager/trust-manager "$TRUST_MANAGER_VERSION" ||
    prepare_failed trust-manager "$TRUST_MANAGER_VERSION" "$logs/trust-manager-$TRUST_MANAGER_VERSION.log" || return 1
  go_build trust-manager "$TRUST_MANAGER_VERSION" "$dir" github.com/cert-manager/trust-manager/cmd/trust-manager
}

# --- the Pulumi engine ----------------------------------------------------------------------------------------
# The CLI's module replaces github.com/atotto/clipboard; scripts/tools/pulumi carries the same replace.
build_pulumi() {
  built pulumi "$PULUMI_VERSION" && return 0
  local dir
  dir=$(module_copy pulumi "pulumi-$PULUMI_VERSION")
  { pin_module "$dir" github.com/pulumi/pulumi/pkg/v3 "$PULUMI_VERSION" &&
    pin_module "$dir" github.com/pulumi/pulumi/sdk/v3 "$PULUMI_VERSION"; } ||
    prepare_failed pulumi "$PULUMI_VERSION" "$logs/pulumi-$PULUMI_VERSION.log" || return 1
  go_build pulumi "$PULUMI_VERSION" "$dir" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi \
    "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION"
}

# The provider's main embeds two files generated at release time: ./embedgen makes them in the build folder.
build_pulumi_kubernetes() {
  local version=v$PULUMI_KUBERNETES_VERSION module=github.com/pulumi/pulumi-kubernetes/provider/v4 dir source
  built pulumi-resource-kubernetes "$version" && return 0
  dir=$(module_copy pulumi-resource-kubernetes "pulumi-resource-kubernetes-$version")
  pin_module "$dir" "$module" "$PULUMI_KUBERNETES_MODULE_VERSION" ||
    prepare_failed pulumi-resource-kubernetes "$version" "$logs/pulumi-resource-kubernetes-$version.log" || return 1
  source=$(cd "$dir" && go mod download "$module" && go list -m -f '{{.Dir}}' "$module")/cmd/pulumi-resource-kubernetes
  if ! (cd "$dir" && go run ./embedgen "$source" "$PULUMI_KUBERNETES_VERSION") >>"$logs/pulumi-resource-kubernetes-$version.log" 2>&1; then
    say pulumi-resource-kubernetes "$version: FAILED generating the embedded schema (log: $logs/pulumi-resource-kubernetes-$version.log)"
    return 1
  fi
  go_build pulumi-resource-kubernetes "$version" "$dir" . \
    "-X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=$PULUMI_KUBERNETES_VERSION"
}

build_pulumi_language_nodejs() {
  built pulumi-language-nodejs "$PULUMI_LANGUAGE_NODEJS_VERSION" && return 0
  local dir
  dir=$(module_copy pulumi-language-nodejs "pulumi-language-nodejs-$PULUMI_LANGUAGE_NODEJS_VERSION")
  pin_module "$dir" github.com/pulumi/pulumi/sdk/v3 "$PULUMI_LANGUAGE_NODEJS_VERSION" ||
    prepare_failed pulumi-language-nodejs "$PULUMI_LANGUAGE_NODEJS_VERSION" \
      "$logs/pulumi-language-nodejs-$PULUMI_LANGUAGE_NODEJS_VERSION.log" || return 1
  go_build pulumi-language-nodejs "$PULUMI_LANGUAGE_NODEJS_VERSION" "$dir" \
    github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs \
    "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_LANGUAGE_NODEJS_VERSION"
}

# --- analyzers -------------------------------------------------------------------------------------------------
# go_install <tool> <version> <package@module version> [ldflags]: modules without replace lines need no wrapper.
go_install() {
  local tool=$1 version=$2 pkg=$3 ldflags=${4:-} tmp log=$logs/$1-$2.log start=$SECONDS
  tmp=$(mktemp -d "$work/$tool.XXXXXX")
  if ! GOBIN=$tmp go install -trimpath -ldflags "-s -w $ldflags" "$pkg" >>"$log" 2>&1; then
    rm -rf "$tmp"
    say "$tool" "$version: FAILED after $((SECONDS - start)) s (log: $log)"
    tail -n 20 "$log" >&2
    return 1
  fi
  mv "$tmp/$(basename "${pkg%@*}")" "$bin/$tool-$version"
  rm -rf "$tmp"
  say "$tool" "$version: built in $((SECONDS - start)) s, $(($(stat -c %s "$bin/$tool-$version") / 1048576)) MB: $bin/$tool-$version"
}

build_kube_score() {
  built kube-score "$KUBE_SCORE_VERSION" && return 0
  go_install kube-score "$KUBE_SCORE_VERSION" "github.com/zegl/kube-score/cmd/kube-score@$KUBE_SCORE_VERSION" \
    "-X main.version=$KUBE_SCORE_VERSION"
}

# checkov is a Python program: a virtual environment of its own in the cache, and a link to its command.
build_checkov() {
  built checkov "$CHECKOV_VERSION" && return 0
  local venv=$cache/venv/checkov-$CHECKOV_VERSION log=$logs/checkov-$CHECKOV_VERSION.log start=$SECONDS
  rm -rf "$venv"
  if ! { python3 -m venv "$venv" && "$venv/bin/pip" install --disable-pip-version-check --no-input "checkov==$CHECKOV_VERSION"; } >>"$log" 2>&1; then
    say checkov "$CHECKOV_VERSION: FAILED after $((SECONDS - start)) s (log: $log)"
    tail -n 20 "$log" >&2
    return 1
  fi
  ln -sfn "$venv/bin/checkov" "$bin/checkov-$CHECKOV_VERSION"
  say checkov "$CHECKOV_VERSION: installed in $((SECONDS - start)) s ($(du -sm "$venv" | cut -f1) MB): $bin/checkov-$CHECKOV_VERSION"
}

# istio.io/istio has no semver tags (its tags are 1.30.3, not v1.30.3), so the proxy has it only as
# pseudo-versions of commits. Its go.mod has no replace lines, but the checksum database does not know two of its
# requirements at that commit, so a plain `go install` fails: scripts/tools/istioctl carries the hashes Istio's
# own go.sum records for them (see its tools.go).
build_istioctl() {
  built istioctl "$ISTIO_VERSION" && return 0
  local dir
  if ! go list -m "istio.io/istio@$ISTIO_MODULE_VERSION" >>"$logs/istioctl-$ISTIO_VERSION.log" 2>&1; then
    say istioctl "$ISTIO_VERSION: NOT BUILT: the Go module proxy does not serve istio.io/istio@$ISTIO_MODULE_VERSION (log: $logs/istioctl-$ISTIO_VERSION.log)"
    return 1
  fi
  dir=$(module_copy istioctl "istioctl-$ISTIO_VERSION")
  pin_module "$dir" istio.io/istio "$ISTIO_MODULE_VERSION" ||
    prepare_failed istioctl "$ISTIO_VERSION" "$logs/istioctl-$ISTIO_VERSION.log" || return 1
  # Istio's own build sets these (common/scripts/report_build_info.sh); buildTag is the module version here.
  go_build istioctl "$ISTIO_VERSION" "$dir" istio.io/istio/istioctl/cmd/istioctl \
    "-X istio.io/istio/pkg/version.buildVersion=$ISTIO_VERSION -X istio.io/istio/pkg/version.buildStatus=Clean -X istio.io/istio/pkg/version.buildGitRevision=${ISTIO_MODULE_VERSION##*-} -X istio.io/istio/pkg/version.buildTag=$ISTIO_MODULE_VERSION"
}

# --- the Google Cloud provider --------------------------------------------------------------------------------------
# git_commit <git URL or git dir> <ref> <name>: prints a git dir holding <ref> and the commit it names. A local git dir
# that has it is used as it is (PULUMI_GCP_GIT and GOOGLE_BETA_GIT may name one); otherwise the one commit is fetched
# into a bare repository of the cache.
git_commit() {
  local source=$1 ref=$2 dir=$work/git/$3.git
  if [ -d "$source" ] && git --git-dir="$source" rev-parse -q --verify "$ref^{commit}" >/dev/null; then
    echo "$source $(git --git-dir="$source" rev-parse "$ref^{commit}")"
    return 0
  fi
  [ -d "$dir" ] || git init -q --bare "$dir"
  if ! git --git-dir="$dir" rev-parse -q --verify "$ref^{commit}" >/dev/null; then
    git --git-dir="$dir" fetch -q --depth 1 "$source" "$ref:$ref" 2>/dev/null ||
      git --git-dir="$dir" fetch -q --depth 1 "$source" "$ref" || return 1
  fi
  echo "$dir $(git --git-dir="$dir" rev-parse "$ref^{commit}" 2>/dev/null || git --git-dir="$dir" rev-parse FETCH_HEAD)"
}

# pulumi-gcp's go.mod replaces terraform-provider-google-beta with ../upstream: the submodule's commit with patches/
# applied in order, as its scripts/upstream.sh does. Three modules the bridge's schema and example generator imports
# are refused by the proxy (403): scripts/tools/pulumi-resource-gcp/refused stands in for them (the provider never
# calls them). The schema the provider embeds (for `pulumi package get-schema` and the bridge's input type check) is
# the committed provider/cmd/pulumi-resource-gcp/schema.json where the git source has it; a git source without it
# (a snapshot that leaves out its largest files) gives a schema of the package's name and version only (an empty
# one makes the bridge's muxer stop at start): the bridge's type check then finds no resource in it and checks
# nothing, and preview and up are otherwise the same (pkg/tfbridge/typechecker, pulumi-terraform-bridge v3.137.0).
prepare_pulumi_gcp() {
  local dir=$1 version=$2 tool=pulumi-resource-gcp src commit usrc ucommit p mode type
  read -r src commit < <(git_commit "${PULUMI_GCP_GIT:-https://github.com/pulumi/pulumi-gcp.git}" "refs/tags/$version" pulumi-gcp)
  [ -n "$commit" ] || return 1
  git --git-dir="$src" archive "$commit" -- provider patches ":!provider/cmd/$tool/schema.json" | tar -x -C "$dir" || return 1
  read -r mode type ucommit p < <(git --git-dir="$src" ls-tree "$commit" upstream)
  [ "$type" = commit ] || { echo "pulumi-gcp $version has no upstream submodule"; return 1; }
  read -r usrc ucommit < <(git_commit "${GOOGLE_BETA_GIT:-https://github.com/hashicorp/terraform-provider-google-beta.git}" "$ucommit" terraform-provider-google-beta)
  [ -n "$ucommit" ] || return 1
  mkdir -p "$dir/upstream"
  git --git-dir="$usrc" archive "$ucommit" | tar -x -C "$dir/upstream" || return 1
  for p in "$dir"/patches/*.patch; do
    (cd "$dir/upstream" && GIT_CEILING_DIRECTORIES=$dir git apply "$p") || return 1
  done
  cp -R "$root/pulumi-resource-gcp/refused" "$dir/refused"
  (cd "$dir/provider" && go mod edit \
    -replace=github.com/pulumi/pulumi-java=../refused/pulumi-java \
    -replace=github.com/pulumi/pulumi-yaml=../refused/pulumi-yaml \
    -replace=github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet/v3=../refused/pulumi-language-dotnet) || return 1
  echo "pulumi-gcp $version ($commit), terraform-provider-google-beta $ucommit with $(ls "$dir"/patches | wc -l) patches"
  if git --git-dir="$src" cat-file -e "$commit:provider/cmd/$tool/schema.json" 2>/dev/null; then
    git --git-dir="$src" show "$commit:provider/cmd/$tool/schema.json" >"$dir/provider/cmd/$tool/schema.json"
    # The schema's version is the provider's, as the Makefile's schema target sets it (cmd/pulumi-resource-gcp/generate.go).
    (cd "$dir/provider/cmd/$tool" && VERSION=${version#v} go run -mod=mod generate.go) || return 1
  else
    echo "no provider/cmd/$tool/schema.json in $src: the provider embeds a schema of its name and version only"
    printf '{"name":"gcp","version":"%s"}' "${version#v}" >"$dir/provider/cmd/$tool/schema-embed.json"
  fi
}

build_pulumi_gcp() {
  local version=v$PULUMI_GCP_VERSION tool=pulumi-resource-gcp dir log
  built "$tool" "$version" && return 0
  log=$logs/$tool-$version.log
  dir=$work/$tool-$version
  rm -rf "$dir"
  mkdir -p "$dir"
  prepare_pulumi_gcp "$dir" "$version" >>"$log" 2>&1 || prepare_failed "$tool" "$version" "$log" || return 1
  # The Makefile's ldflags: the provider's version, and upstream's (which it sends to Google in its user agent).
  go_build "$tool" "$version" "$dir/provider" "./cmd/$tool" \
    "-X github.com/pulumi/pulumi-gcp/provider/v9/pkg/version.Version=$PULUMI_GCP_VERSION -X github.com/hashicorp/terraform-provider-google-beta/version.ProviderVersion=$version"
}

# --- dispatch -------------------------------------------------------------------------------------------------
build_tool() {
  case $1 in
    etcd) build_etcd ;;
    kube-apiserver | kube-controller-manager | kubectl) build_kubernetes_command "$1" "$1" "$KUBERNETES_VERSION" ;;
    kube-apiserver-lowest | kube-controller-manager-lowest)
      build_kubernetes_command "${1%-lowest}" "${1%-lowest}" "$KUBERNETES_LOWEST_VERSION" ;;
    cert-manager-controller | cert-manager-cainjector) build_cert_manager "${1#cert-manager-}" ;;
    trust-manager) build_trust_manager ;;
    pulumi) build_pulumi ;;
    pulumi-resource-kubernetes) build_pulumi_kubernetes ;;
    pulumi-language-nodejs) build_pulumi_language_nodejs ;;
    kube-score) build_kube_score ;;
    checkov) build_checkov ;;
    istioctl) build_istioctl ;;
    pulumi-resource-gcp) build_pulumi_gcp ;;
    *)
      echo "unknown tool: $1 (known: ${all_tools[*]})" >&2
      return 2
      ;;
  esac
}

main() {
  local tools=("$@") failed=() t
  [ ${#tools[@]} -gt 0 ] || tools=("${all_tools[@]}")
  for t in "${tools[@]}"; do
    build_tool "$t" || failed+=("$t")
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "not built: ${failed[*]}" >&2
    return 1
  fi
}

# On one line, so bash has read it all before running it: editing this file during a build is safe.
main "$@"; exit $?
