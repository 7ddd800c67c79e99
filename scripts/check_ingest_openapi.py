#!/usr/bin/env python3
"""Drives a running ingest gateway with http.client and checks every answer against docs/ingest-openapi.yaml.

    check_ingest_openapi.py --spec docs/ingest-openapi.yaml --url http://127.0.0.1:PORT --admin-url http://127.0.0.1:ADMIN \
        --events FILE CASE...

FILE holds valid DailyValue events, one per line. Each CASE sends one request (or a few, for the cases that need
concurrency) and prints one JSON line: the case, the status, the content type, the documented operation and the
problems found (an undocumented status or content type, a missing required header, a body the documented schema
refuses, or a status other than the case expects). Exit status 0 when no case has a problem, 1 otherwise.

Cases: accepted-array accepted-ndjson accepted-gzip replayed key-reused malformed-json not-an-array bad-key
too-many-records too-large too-large-gzip unsupported-type unsupported-encoding invalid-records method
repeated-header probe-method:PATH healthz readyz metrics throttled conflict unavailable not-ready unauthorized forbidden
(unauthorized/forbidden need --token; forbidden a token whose scope excludes the events' patients).
"""
import argparse
import gzip
import http.client
import json
import re
import socket
import sys
import threading
import time
import urllib.parse

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_URI = "urn:dvp:ingest-openapi"


class Spec:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.doc = yaml.safe_load(f)
        self.registry = Registry().with_resource(
            SPEC_URI, Resource.from_contents(self.doc, default_specification=DRAFT202012))

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/"):
            target = self.doc
            for part in node["$ref"][2:].split("/"):
                target = target[part]
            node = target
        return node

    def operation(self, path, method):
        item = self.doc["paths"].get(path)
        return None if item is None else item.get(method.lower())

    def documented(self, path, method, status):
        """The documented METHOD of the operation that covers this answer: the request's own, or for a 405 (a method
        the path does not take) the operation of the path that documents 405."""
        method = "GET" if method == "HEAD" else method
        if self.operation(path, method) is None and status == 405:
            for other, operation in (self.doc["paths"].get(path) or {}).items():
                if other in METHODS and "405" in operation["responses"]:
                    return other.upper()
        return method

    def check(self, path, method, status, headers, body):
        """The problems of one answer against the documented operation."""
        operation = self.operation(path, self.documented(path, method, status))
        if operation is None:
            return [f"{method} {path} is not documented"]
        response = operation["responses"].get(str(status)) or operation["responses"].get("default")
        if response is None:
            return [f"status {status} is not documented for {method} {path}"]
        response = self.resolve(response)
        problems = []
        for name, header in (response.get("headers") or {}).items():
            header = self.resolve(header)
            value = headers.get(name.lower())
            if value is None:
                if header.get("required"):
                    problems.append(f"required header {name} is missing")
                continue
            problems += self.validate(header.get("schema", {}), value, f"header {name}")
        content = response.get("content") or {}
        media = (headers.get("content-type") or "").split(";")[0].strip().lower()
        if not content:
            return problems
        if media not in content:
            return problems + [f"content type {media or 'none'} is not documented for {status} (only {list(content)})"]
        if method == "HEAD":
            return problems
        schema = content[media].get("schema", {})
        text = body.decode("utf-8", "replace")
        if media.endswith("json"):
            try:
                instance = json.loads(text)
            except ValueError as error:
                return problems + [f"the body is not JSON: {error}"]
        else:
            instance = text
        return problems + self.validate(schema, instance, "body")

    def validate(self, schema, instance, what):
        wrapped = {"$ref": SPEC_URI + "#" + self.pointer_of(schema)} if "$ref" in schema else schema
        validator = Draft202012Validator(wrapped, registry=self.registry)
        return [f"{what}: {error.message}" for error in validator.iter_errors(instance)]

    @staticmethod
    def pointer_of(schema):
        return schema["$ref"][1:] if schema["$ref"].startswith("#") else schema["$ref"]


class Gateway:
    def __init__(self, url, token):
        parsed = urllib.parse.urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.token = token

    def request(self, method, path, body=None, headers=None, auth=True):
        """`headers`: a dict, or a list of (name, value) pairs for repeated fields."""
        fields = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
        if auth and self.token and not any(name.lower() == "authorization" for name, _ in fields):
            fields.append(("Authorization", "Bearer " + self.token))
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.putrequest(method, path, skip_accept_encoding=True)
            encoded = body.encode() if isinstance(body, str) else body
            for name, value in fields:
                connection.putheader(name, value)
            if encoded is not None:
                connection.putheader("Content-Length", str(len(encoded)))
            connection.endheaders(encoded)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def hold(self, content_length):
        """A connection that sent a POST head and a little of its body, and keeps the request in flight."""
        held = socket.create_connection((self.host, self.port), timeout=30)
        auth = f"Authorization: Bearer {self.token}\r\n" if self.token else ""
        head = (f"POST /v1/daily-values HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{auth}"
                f"Content-Length: {content_length}\r\n\r\n[")
        held.sendall(head.encode())
        return held


def metric_line_of(text, prefix):
    """The line of `text` (a /metrics answer) starting with `prefix`, None when absent."""
    return next((line for line in text.splitlines() if line.startswith(prefix)), None)


def metric_line(admin, prefix):
    """The admin listener's /metrics line starting with `prefix`, None when absent."""
    return metric_line_of(admin.request("GET", "/metrics", auth=False)[2].decode(), prefix)


def wait_for_metrics(admin, condition, timeout=20.0):
    """Polls the admin listener's /metrics until `condition(text)` holds; raises after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if condition(admin.request("GET", "/metrics", auth=False)[2].decode()):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"/metrics did not reach the expected state within {timeout} s")
        time.sleep(0.05)


METHODS = ("get", "head", "post", "put", "patch", "delete")
"""The keys of a path item that are operations (a path may have its own `servers` too)."""


def post_json(events):
    return "[" + ",".join(events) + "]"


def run_case(name, gateway, admin, events):
    """Sends the case's request(s); returns (method, path, expected status, answer) of the one to check."""
    ndjson = "application/x-ndjson"
    js = {"Content-Type": "application/json"}
    key = f"key-{name}-{time.time_ns()}"
    if name == "accepted-array":
        return "POST", 202, gateway.request("POST", "/v1/daily-values", post_json(events[:3]), js)
    if name == "accepted-ndjson":
        body = "\n".join(events[3:6]) + "\n"
        return "POST", 202, gateway.request("POST", "/v1/daily-values", body, {"Content-Type": ndjson})
    if name == "accepted-gzip":
        body = gzip.compress(post_json(events[6:9]).encode())
        return "POST", 202, gateway.request(
            "POST", "/v1/daily-values", body, {**js, "Content-Encoding": "gzip"})
    if name == "replayed":
        body = post_json(events[9:11])
        first = gateway.request("POST", "/v1/daily-values", body, {**js, "Idempotency-Key": key})
        second = gateway.request("POST", "/v1/daily-values", body, {**js, "Idempotency-Key": key})
        if first[0] != 202 or second[2] != first[2] or second[1].get("idempotent-replayed") != "true":
            return "POST", "replay of the same receipt", (second[0], second[1], second[2])
        return "POST", 202, second
    if name == "key-reused":
        gateway.request("POST", "/v1/daily-values", post_json(events[11:12]), {**js, "Idempotency-Key": key})
        return "POST", 422, gateway.request(
            "POST", "/v1/daily-values", post_json(events[12:13]), {**js, "Idempotency-Key": key})
    if name == "malformed-json":
        return "POST", 400, gateway.request("POST", "/v1/daily-values", '[{"schema":1,', js)
    if name == "not-an-array":
        return "POST", 400, gateway.request("POST", "/v1/daily-values", events[0], js)
    if name == "bad-key":
        return "POST", 400, gateway.request(
            "POST", "/v1/daily-values", post_json(events[:1]), {**js, "Idempotency-Key": "bad key\u00e9"})
    if name == "too-many-records":
        return "POST", 413, gateway.request("POST", "/v1/daily-values", post_json(events[:1] * 6), js)
    if name == "too-large":
        return "POST", 413, gateway.request("POST", "/v1/daily-values", " " * 5000 + post_json(events[:1]), js)
    if name == "too-large-gzip":
        bomb = gzip.compress(b"[" + b" " * (64 * 1024 * 1024) + b"]")
        return "POST", 413, gateway.request("POST", "/v1/daily-values", bomb, {**js, "Content-Encoding": "gzip"})
    if name == "unsupported-type":
        return "POST", 415, gateway.request("POST", "/v1/daily-values", post_json(events[:1]), {"Content-Type": "text/csv"})
    if name == "unsupported-encoding":
        return "POST", 415, gateway.request(
            "POST", "/v1/daily-values", post_json(events[:1]), {**js, "Content-Encoding": "br"})
    if name == "invalid-records":
        bad = json.loads(events[0])
        bad["unit"] = "furlong"
        return "POST", 422, gateway.request("POST", "/v1/daily-values", post_json([events[1], json.dumps(bad)]), js)
    if name == "method":
        return "GET", 405, gateway.request("GET", "/v1/daily-values")
    if name == "repeated-header":
        return "POST", 400, gateway.request(
            "POST", "/v1/daily-values", post_json(events[:1]), [("Content-Type", "application/json"),
                                                                ("Content-Type", "text/plain")])
    if name.startswith("probe-method:"):
        probe = name.split(":", 1)[1]
        return "POST", 405, (probe, admin.request("POST", probe, "x", {"Content-Type": "text/plain"}))
    if name in ("healthz", "readyz", "metrics"):
        return "GET", 200, ("/" + name, admin.request("GET", "/" + name, auth=False))
    if name == "not-ready":
        return "GET", 503, ("/readyz", admin.request("GET", "/readyz", auth=False))
    if name == "throttled":
        # The gateway under test admits two requests at once: hold two, the third is refused from its head.
        held = [gateway.hold(3000), gateway.hold(3000)]
        try:
            # Both admitted (not a fixed sleep: on a loaded machine the heads can take longer to be read).
            wait_for_metrics(admin, lambda text: "dvp_ingest_in_flight_requests 2\n" in text)
            return "POST", 429, gateway.request("POST", "/v1/daily-values", post_json(events[:1]), js)
        finally:
            for connection in held:
                connection.close()
    if name == "conflict":
        # The broker is slowed down by the test: the first request is still waiting for its acknowledgement.
        body = post_json(events[13:14])
        first = {}
        thread = threading.Thread(target=lambda: first.update(answer=gateway.request(
            "POST", "/v1/daily-values", body, {**js, "Idempotency-Key": key})))
        decoded_before = metric_line(admin, "dvp_ingest_decoded_bytes_total ")
        thread.start()
        # The first is in flight with its body decoded (its key is taken right after), not a fixed sleep: under load
        # the thread's request can start late and the two swap.
        wait_for_metrics(admin, lambda text: "dvp_ingest_in_flight_requests 1\n" in text
                         and metric_line_of(text, "dvp_ingest_decoded_bytes_total ") != decoded_before)
        second = gateway.request("POST", "/v1/daily-values", body, {**js, "Idempotency-Key": key})
        thread.join()
        return "POST", 409, second
    if name == "unavailable":
        return "POST", 503, gateway.request("POST", "/v1/daily-values", post_json(events[14:16]), js)
    if name == "unauthorized":
        return "POST", 401, gateway.request(
            "POST", "/v1/daily-values", post_json(events[:1]), {**js, "Authorization": "Bearer test-unknown"})
    if name == "forbidden":
        return "POST", 403, gateway.request("POST", "/v1/daily-values", post_json(events[:2]), js)
    raise SystemExit(f"unknown case {name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--url")
    parser.add_argument("--admin-url", help="the admin listener (the probes and /metrics)")
    parser.add_argument("--events")
    parser.add_argument("--token")
    parser.add_argument("--list-documented", action="store_true", help="print every documented METHOD PATH STATUS")
    parser.add_argument("cases", nargs="*")
    args = parser.parse_args()
    spec = Spec(args.spec)
    if args.list_documented:
        for path, item in spec.doc["paths"].items():
            for method, operation in item.items():
                if method not in METHODS:
                    continue  # e.g. a path's own `servers`
                for status in operation["responses"]:
                    print(f"{method.upper()} {path} {status}")
        return
    gateway = Gateway(args.url, args.token)
    admin = Gateway(args.admin_url or args.url, None)
    with open(args.events, encoding="utf-8") as f:
        events = [line.strip() for line in f if line.strip()]
    failed = False
    for name in args.cases:
        method, expected, answer = run_case(name, gateway, admin, events)
        path = "/v1/daily-values"
        if len(answer) == 2:
            path, answer = answer
        status, headers, body = answer
        problems = spec.check(path, method, status, headers, body)
        if status != expected:
            problems.append(f"expected {expected}, got {status}: {body[:300].decode('utf-8', 'replace')}")
        failed = failed or bool(problems)
        documented = f"{spec.documented(path, method, status)} {path} {status}"
        print(json.dumps({"case": name, "documented": documented, "status": status,
                          "contentType": headers.get("content-type", ""), "problems": problems}), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
