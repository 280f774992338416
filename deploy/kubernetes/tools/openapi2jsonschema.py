#!/usr/bin/env python3
"""Writes kubeconform's schema layout ({kind}-{group}-{version}.json, standalone and strict) from a Kubernetes
OpenAPI v2 document (api/openapi-spec/swagger.json of the k8s.io/kubernetes Go module), so manifests can be
validated with no network: the same conversion kubeconform's scripts/openapi2jsonschema.py makes for the published
schemas, written again here for the few rules it needs:
  - every $ref inlined (standalone); a type that contains itself (JSONSchemaProps) is left open where it recurs;
  - objects with properties refuse unknown keys (kubeconform -strict: a misspelt field is an error);
  - int-or-string fields take a string or an integer, quantities a string or a number, as the API server does.
usage: openapi2jsonschema.py swagger.json out-dir [Kind ...]   (no kinds: every kind the document has)
"""
import json
import os
import sys

def convert(node, defs, stack):
    if isinstance(node, list):
        return [convert(n, defs, stack) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].split("/")[-1]
        return {} if name in stack else convert(defs[name], defs, stack + (name,))
    out = {}
    for key, value in node.items():
        if key in ("description", "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key",
                   "x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type",
                   "x-kubernetes-unions"):
            continue
        if key == "properties":
            out[key] = {k: convert(v, defs, stack) for k, v in value.items()}
        else:
            out[key] = convert(value, defs, stack)
    if out.get("format") == "int-or-string":
        return {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def main():
    swagger, out_dir, kinds = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    defs = json.load(open(swagger))["definitions"]
    defs["io.k8s.apimachinery.pkg.api.resource.Quantity"] = {"oneOf": [{"type": "string"}, {"type": "number"}]}
    os.makedirs(out_dir, exist_ok=True)
    written = 0
    for name, definition in defs.items():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            if kinds and gvk["kind"] not in kinds:
                continue
            group = gvk["group"].split(".")[0]
            suffix = ("-" + group if group else "") + "-" + gvk["version"]
            schema = convert(definition, defs, (name,))
            schema["$schema"] = "http://json-schema.org/schema#"
            path = os.path.join(out_dir, (gvk["kind"] + suffix).lower() + ".json")
            with open(path, "w") as f:
                json.dump(schema, f)
            written += 1
    print(f"{written} schemas in {out_dir}")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
