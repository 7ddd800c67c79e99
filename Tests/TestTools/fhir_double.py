#!/usr/bin/env python3
"""A small in-memory FHIR R4 server for the FHIR store's fault tests, with quirks real servers show that sekmet-fhir
cannot: 409 instead of 412 on a version conflict, identical PUTs that bump the version, 429 with Retry-After, bursts
of 5xx, slow answers, referential-integrity rejections (HAPI), identifier truncation, opaque version ids (Google), no
_history (or one that lags), tags merged on update (HAPI), an oversized response, and a concurrent writer that gets in
between the store's read and its write. Standard library only; binds 127.0.0.1.

Usage: fhir_double.py --port-file PATH [--tls-cert PEM --tls-key PEM [--client-ca PEM]]
  (writes the bound port into PATH once listening; with TLS it serves https, with --client-ca it requires a client
  certificate signed by that CA)
Quirks are switched at run time with POST /_control {"name": value, ...}; GET /_stats returns counters.
"""
import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

LOCK = threading.Lock()
STORE = {}  # id -> list of versions (resource dicts); a deleted copy is never made here
QUIRKS = {
    "conflict_status": 412,  # 409 like some servers
    "bump_identical": False,  # an identical PUT makes a new version (like sekmet, unlike HAPI's no-op detection)
    "throttle": 0,  # the next N requests answer 429 with Retry-After: retry_after
    "retry_after": "1",
    "fail": 0,  # the next N requests answer fail_status
    "fail_status": 500,
    "fail_diagnostics": "injected failure",  # the diagnostics of an injected failure's OperationOutcome
    "delay_ms": 0,  # every request waits this long first
    "require_patient": False,  # an Observation whose subject is Patient/x is refused (400) unless Patient/x exists
    "truncate_identifier": 0,  # identifier values are cut to this many characters when stored (0: kept)
    "interpose": {},  # id -> resource (or a list: one per PUT) another writer PUTs just before the next write of id
    "tokens": [],  # bearer tokens accepted on /fhir (none: no authorization required)
    "forbidden": False,  # every /fhir request answers 403 (a token without the needed scope)
    "client": None,  # [client_id, client_secret] the OAuth2 endpoint POST /token accepts
    "token_lifetime": 3600,  # expires_in of issued tokens, seconds
    "access_token": None,  # the access_token POST /token issues (None: issued-N)
    "token_echo": False,  # a refused POST /token echoes the request's form in its body (a careless endpoint)
    "opaque_versions": False,  # version ids are opaque strings (like Google's), not 1, 2, 3
    "no_history": False,  # _history answers 404 and /metadata drops history-instance (switched on after the store
    # opened: a server whose history fails at run time)
    "history_lag": 0,  # the next N instance _history lists leave out the newest version (history not yet visible)
    "merge_tags": False,  # an update keeps the old version's meta.tag entries (HAPI) unless the request says
    # X-Meta-Snapshot-Mode: TAG
    "throttle_entries": 0,  # the next N PUT entries of a batch answer 429 (a Bundle entry has no Retry-After)
    "big_metadata": 0,  # /metadata carries this many padding bytes (chunked, no Content-Length: a size-bound test)
}
STATS = {"injected_headers": 0, "tokens_issued": 0, "unauthorized": 0, "connections": 0, "requests": 0, "throttled": 0, "failed": 0, "puts": 0, "conflicts": 0, "bundles": 0, "decreases": 0,
         "history_reads": 0, "bundles_in_flight": 0, "max_bundles_in_flight": 0}
VERSION_TAG = "https://fhir.example.org/CodeSystem/daily-values-pipeline/event-version"


def event_version(resource):
    """The highest version tag (merged tags may hold several)."""
    codes = [int(t.get("code", "0")) for t in resource.get("meta", {}).get("tag", []) if t.get("system") == VERSION_TAG]
    return max(codes) if codes else None


def outcome(code, text):
    return {"resourceType": "OperationOutcome", "issue": [{"severity": "error", "code": code, "diagnostics": text}]}


def status_line(status):
    return {200: "200 OK", 201: "201 Created", 400: "400 Bad Request", 404: "404 Not Found",
            409: "409 Conflict", 412: "412 Precondition Failed"}.get(status, str(status))


def store(resource, rid, snapshot_tags=False):
    """Stores a new version of rid (under LOCK); returns (status, versionId)."""
    versions = STORE.setdefault(rid, [])
    previous = versions[-1] if versions else None
    body = json.loads(json.dumps(resource))
    meta = body.setdefault("meta", {})
    meta.pop("versionId", None)
    meta.pop("lastUpdated", None)
    if previous is not None and QUIRKS["merge_tags"] and not snapshot_tags:
        tags = meta.get("tag", [])
        meta["tag"] = [t for t in previous["meta"].get("tag", []) if t not in tags] + tags
    limit = QUIRKS["truncate_identifier"]
    if limit:
        for identifier in body.get("identifier", []):
            identifier["value"] = identifier.get("value", "")[:limit]
    if previous is not None and not QUIRKS["bump_identical"]:
        same = {k: v for k, v in previous.items() if k != "meta"} == {k: v for k, v in body.items() if k != "meta"}
        old_meta = {k: v for k, v in previous["meta"].items() if k not in ("versionId", "lastUpdated")}
        if same and old_meta == meta:
            return 200, previous["meta"]["versionId"]
    if previous is not None and (event_version(previous) or 0) > (event_version(body) or 0):
        STATS["decreases"] += 1  # a stale overwrite: the oracle tests require none
    version = f"v{os.urandom(6).hex()}" if QUIRKS["opaque_versions"] else str(len(versions) + 1)
    meta["versionId"] = version
    meta["lastUpdated"] = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    versions.append(body)
    return (201 if previous is None else 200), version


def put(rid, resource, if_match, snapshot_tags=False):
    """One PUT Observation/rid; returns (status, etag or None, outcome or None)."""
    with LOCK:
        STATS["puts"] += 1
        other = QUIRKS["interpose"].pop(rid, None)
        if isinstance(other, list):
            if len(other) > 1:
                QUIRKS["interpose"][rid] = other[1:]
            other = other[0] if other else None
        if other is not None:
            store(other, rid)
        if resource.get("resourceType") != "Observation" or resource.get("id") != rid:
            return 400, None, outcome("invalid", "resource type or id does not match the URL")
        subject = resource.get("subject", {}).get("reference", "")
        if QUIRKS["require_patient"] and subject.startswith("Patient/") and subject not in STORE:
            return 400, None, outcome(
                "processing", f"Resource {subject} not found, specified in path: Observation.subject")
        current = STORE.get(rid)
        if if_match is not None:
            want = if_match.replace("W/", "").strip('"')
            if not current or current[-1]["meta"]["versionId"] != want:
                STATS["conflicts"] += 1
                status = QUIRKS["conflict_status"]
                return status, None, outcome("conflict", f"version conflict: If-Match {if_match}")
        status, version = store(resource, rid, snapshot_tags)
        return status, f'W/"{version}"', None


def read(path):
    """GET of Observation/id, Observation/id/_history/vid or Observation/id/_history (a history Bundle, newest
    first); returns (status, resource or outcome)."""
    parts = urlsplit(path).path.strip("/").split("/")
    with LOCK:
        versions = STORE.get(parts[1]) if len(parts) >= 2 and parts[0] == "Observation" else None
        if not versions:
            return 404, outcome("not-found", f"{path} not found")
        if len(parts) >= 3 and parts[2] == "_history":
            STATS["history_reads"] += len(parts) == 3
            if QUIRKS["no_history"]:
                return 404, outcome("not-supported", "history is not supported here")
            if len(parts) == 3:
                visible = versions
                if QUIRKS["history_lag"] > 0:
                    QUIRKS["history_lag"] -= 1
                    visible = versions[:-1]
                return 200, {"resourceType": "Bundle", "type": "history", "total": len(visible),
                             "entry": [{"resource": v} for v in reversed(visible)]}
            found = [v for v in versions if len(parts) == 4 and v["meta"]["versionId"] == parts[3]]
            return (200, found[0]) if found else (404, outcome("not-found", f"{path} not found"))
        return 200, versions[-1]


def search(query):
    params = parse_qs(query)
    with LOCK:
        found = [versions[-1] for versions in STORE.values()]
    for token in params.get("identifier", []):
        system, _, value = token.partition("|")
        found = [r for r in found if any(i.get("system") == system and i.get("value") == value
                                         for i in r.get("identifier", []))]
    for token in params.get("_tag", []):
        system, _, code = token.partition("|")
        found = [r for r in found if any(t.get("system") == system and (not code or t.get("code") == code)
                                         for t in r.get("meta", {}).get("tag", []))]
    return {"resourceType": "Bundle", "type": "searchset", "total": len(found),
            "entry": [{"resource": r} for r in found]}


CAPABILITIES = {
    "resourceType": "CapabilityStatement", "status": "active", "kind": "instance", "fhirVersion": "4.0.1",
    "software": {"name": "dvp FHIR double", "version": "1"}, "format": ["application/fhir+json"],
    "rest": [{"mode": "server", "interaction": [{"code": "batch"}],
              "resource": [{"type": "Observation", "versioning": "versioned-update", "updateCreate": True,
                            "interaction": [{"code": "read"}, {"code": "vread"}, {"code": "update"},
                                            {"code": "history-instance"}, {"code": "search-type"}]}]}],
}


def capabilities():
    """CAPABILITIES, without history-instance while no_history is on."""
    statement = json.loads(json.dumps(CAPABILITIES))
    if QUIRKS["no_history"]:
        observation = statement["rest"][0]["resource"][0]
        observation["interaction"] = [i for i in observation["interaction"] if i["code"] != "history-instance"]
    return statement


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        with LOCK:
            STATS["connections"] += 1

    def send(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/fhir+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_chunked(self, body):
        """200 with a chunked body (no Content-Length: the client learns the size only as it arrives)."""
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/fhir+json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for start in range(0, len(data), 65536):
            chunk = data[start:start + 65536]
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"null")

    def count_injected(self):
        """Counts a request that carries an X-Injected header (a header-injection test's canary)."""
        if self.headers.get("X-Injected") is not None:
            with LOCK:
                STATS["injected_headers"] += 1

    def fault(self):
        """Applies authorization and the switched-on faults; True when one answered the request."""
        self.count_injected()
        with LOCK:
            tokens, forbidden = list(QUIRKS["tokens"]), QUIRKS["forbidden"]
        if tokens and self.headers.get("Authorization", "").removeprefix("Bearer ") not in tokens:
            with LOCK:
                STATS["unauthorized"] += 1
            self.send(401, outcome("login", "missing or unknown bearer token"))
            return True
        if forbidden:
            self.send(403, outcome("forbidden", "the token lacks the scope for this request"))
            return True
        with LOCK:
            STATS["requests"] += 1
            delay = QUIRKS["delay_ms"]
            throttled = QUIRKS["throttle"] > 0
            failed = not throttled and QUIRKS["fail"] > 0
            if throttled:
                QUIRKS["throttle"] -= 1
                STATS["throttled"] += 1
            if failed:
                QUIRKS["fail"] -= 1
                STATS["failed"] += 1
        if delay:
            time.sleep(delay / 1000)
        if throttled:
            self.send(429, outcome("throttled", "too many requests"), [("Retry-After", QUIRKS["retry_after"])])
        elif failed:
            self.send(QUIRKS["fail_status"], outcome("exception", QUIRKS["fail_diagnostics"]))
        return throttled or failed

    def base_path(self):
        path = urlsplit(self.path).path
        return path[len("/fhir"):] if path.startswith("/fhir") else None

    def do_GET(self):
        path = self.base_path()
        if urlsplit(self.path).path == "/_stats":
            with LOCK:
                return self.send(200, dict(STATS, stored=len(STORE)))
        if path is None:
            return self.send(404, outcome("not-found", "no FHIR base here"))
        if self.fault():
            return
        if path == "/metadata":
            padding = QUIRKS["big_metadata"]
            if padding:
                return self.send_chunked(dict(CAPABILITIES, description="x" * padding))
            return self.send(200, capabilities())
        if path == "/Observation":
            return self.send(200, search(urlsplit(self.path).query))
        status, body = read(unquote(path))
        etag = [("ETag", f'W/"{body["meta"]["versionId"]}"')] if status == 200 and "meta" in body else []
        self.send(status, body, etag)

    def do_PUT(self):
        path = self.base_path()
        if path is None or not path.startswith("/Observation/"):
            return self.send(404, outcome("not-found", "unknown path"))
        resource = self.body()  # read first: an unread body would be taken for the next request on this connection
        if self.fault():
            return
        status, etag, problem = put(path.split("/")[2], resource, self.headers.get("If-Match"), self.snapshot_tags())
        self.send(status, problem, [("ETag", etag)] if etag else [])

    def snapshot_tags(self):
        """The request asks for tags as a snapshot (HAPI's X-Meta-Snapshot-Mode; a batch's entries inherit it)."""
        modes = self.headers.get("X-Meta-Snapshot-Mode", "")
        return "TAG" in [m.strip().upper() for m in modes.split(",")]

    def do_POST(self):
        if urlsplit(self.path).path == "/token":
            self.count_injected()
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            with LOCK:
                client = QUIRKS["client"]
                if form.get("grant_type") != "client_credentials" or not client or \
                        [form.get("client_id"), form.get("client_secret")] != client:
                    refusal = {"error": "invalid_client"}
                    if QUIRKS["token_echo"]:
                        refusal["error_description"] = f"no client for {form}"
                    return self.send(401, refusal)
                STATS["tokens_issued"] += 1
                token = QUIRKS["access_token"] or f"issued-{STATS['tokens_issued']}"
                QUIRKS["tokens"] = QUIRKS["tokens"] + [token]
                lifetime = QUIRKS["token_lifetime"]
            return self.send(200, {"access_token": token, "token_type": "Bearer", "expires_in": lifetime})
        if urlsplit(self.path).path == "/_control":
            with LOCK:
                QUIRKS.update(self.body())
            return self.send(200, {"ok": True})
        path = self.base_path()
        bundle = self.body()
        if path not in ("", "/"):
            return self.send(404, outcome("not-found", "unknown path"))
        with LOCK:  # Bundles answered at once, the delay and injected faults included
            STATS["bundles_in_flight"] += 1
            STATS["max_bundles_in_flight"] = max(STATS["max_bundles_in_flight"], STATS["bundles_in_flight"])
        try:
            self.bundle(bundle)
        finally:
            with LOCK:
                STATS["bundles_in_flight"] -= 1

    def bundle(self, bundle):
        """Answers a POSTed batch Bundle."""
        if self.fault():
            return
        if bundle.get("type") != "batch":
            return self.send(400, outcome("invalid", "only batch Bundles are accepted here"))
        with LOCK:
            STATS["bundles"] += 1
        entries = []
        for entry in bundle.get("entry", []):
            request = entry.get("request", {})
            url = request.get("url", "")
            if request.get("method") == "GET":
                status, body = read(url)
                answer = {"status": status_line(status)}
                if status == 200 and "meta" in body:
                    answer["etag"] = f'W/"{body["meta"]["versionId"]}"'
                    entries.append({"resource": body, "response": answer})
                else:
                    entries.append({"response": dict(answer, outcome=body)})
            elif request.get("method") == "PUT" and url.startswith("Observation/") and QUIRKS["throttle_entries"] > 0:
                with LOCK:
                    QUIRKS["throttle_entries"] -= 1
                    STATS["throttled"] += 1
                entries.append({"response": {"status": "429 Too Many Requests",
                                             "outcome": outcome("throttled", "too many requests")}})
            elif request.get("method") == "PUT" and url.startswith("Observation/"):
                status, etag, problem = put(url.split("/")[1], entry.get("resource", {}), request.get("ifMatch"),
                                            self.snapshot_tags())
                answer = {"status": status_line(status)}
                if etag:
                    answer["etag"] = etag
                if problem:
                    answer["outcome"] = problem
                entries.append({"response": answer})
            else:
                entries.append({"response": {"status": "400 Bad Request",
                                             "outcome": outcome("not-supported", f"{request}")}})
        self.send(200, {"resourceType": "Bundle", "type": "batch-response", "entry": entries})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--patients", default="", help="comma-separated Patient ids that exist")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--client-ca")
    args = parser.parse_args()
    for patient in filter(None, args.patients.split(",")):
        STORE[f"Patient/{patient}"] = [{"resourceType": "Patient", "id": patient, "meta": {"versionId": "1"}}]
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.tls_cert:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        if args.client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(args.client_ca)
        # The handshake runs in the handler's thread: a client that fails it cannot stall the accept loop.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
