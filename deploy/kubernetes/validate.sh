#!/usr/bin/env bash
# Validates deploy/kubernetes with no cluster and no network beyond the Go module proxy:
#   1. kubectl kustomize renders it (the kustomization, the ConfigMap generator, the labels); where there is no
#      kubectl, the same kustomize as a Go tool (Debian's kubernetes-client is 1.20, whose kustomize is too old);
#   2. the gateway.yaml it ships passes `loomgate validate` (when a jar is given as $LOOMGATE_JAR);
#   3. kubeconform -strict checks every object against JSON schemas made from the Kubernetes $K8S_VERSION OpenAPI
#      document, taken from the k8s.io/kubernetes Go module (go mod download) and converted by
#      tools/openapi2jsonschema.py. kubeconform's default schema location is a GitHub URL this machine cannot reach.
# Needs Go (kubeconform, the module, kustomize without kubectl) and python3. Exit 0 valid, 1 invalid, 3 a tool is
# missing.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
K8S_VERSION=${K8S_VERSION:-1.31.4}
KUBECONFORM_VERSION=${KUBECONFORM_VERSION:-v0.8.0}
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loomgate/k8s-schemas-$K8S_VERSION}

need() { echo "validate.sh: $1" >&2; exit 3; }
[[ -x $GO ]] || need "go not found (set GO=/path/to/go)"
command -v python3 >/dev/null || need "python3 not found"

gobin=$("$GO" env GOPATH)/bin
if command -v kubectl >/dev/null; then
    render() { kubectl kustomize "$1"; }
else
    [[ -x $gobin/kustomize ]] || "$GO" install sigs.k8s.io/kustomize/kustomize/v5@v5.5.0
    render() { "$gobin/kustomize" build "$1"; }
fi

kubeconform=$(command -v kubeconform || true)
if [[ -z $kubeconform ]]; then
    [[ -x $gobin/kubeconform ]] || "$GO" install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
    kubeconform=$gobin/kubeconform
fi

if [[ ! -f $CACHE/deployment-apps-v1.json ]]; then
    dir=$(cd /tmp && GOFLAGS=-mod=mod "$GO" mod download -json "k8s.io/kubernetes@v$K8S_VERSION" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
    python3 "$HERE/tools/openapi2jsonschema.py" "$dir/api/openapi-spec/swagger.json" "$CACHE" \
        Deployment Service ConfigMap HorizontalPodAutoscaler PodDisruptionBudget NetworkPolicy >/dev/null
fi

rendered=$(mktemp --suffix=.yaml)
trap 'rm -f "$rendered"' EXIT
render "$HERE" >"$rendered"
for kind in Deployment Service ConfigMap HorizontalPodAutoscaler PodDisruptionBudget NetworkPolicy; do
    grep -q "^kind: $kind\$" "$rendered" || { echo "validate.sh: no $kind in the kustomization" >&2; exit 1; }
done
if [[ -n ${LOOMGATE_JAR:-} ]]; then
    java=${JAVA:-java}
    # The token comes from a Secret in the pod; any 32 characters stand in for it here.
    LOOMGATE_ADMIN_TOKEN=${LOOMGATE_ADMIN_TOKEN:-validate-only-0123456789abcdef0123} \
        "$java" -jar "$LOOMGATE_JAR" validate --config "$HERE/gateway.yaml"
fi
"$kubeconform" -strict -summary -kubernetes-version "$K8S_VERSION" \
    -schema-location "$CACHE/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$rendered"
