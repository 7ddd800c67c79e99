#!/usr/bin/env python3
"""Streams DailyValue events to an ingest gateway with http.client, as a phone backend would, and records every answer.

    ingest_stream.py --url http://127.0.0.1:PORT --events FILE --per-request N --threads T --out ANSWERS.jsonl

FILE holds one event per line; it is cut into requests of N events (JSON arrays), sent by T threads, each request
once (no retries: the test wants to see what the gateway said), each thread pausing --pause-ms between its requests.
Each answer is appended to ANSWERS as it comes (one line: the request's first line number in FILE, its status, and
for a 202 the receipts, partition and offset per record). A connection error is recorded as status 0. Exit status 0.
"""
import argparse
import http.client
import json
import queue
import threading
import time
import urllib.parse


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--events", required=True)
    parser.add_argument("--per-request", type=int, default=20)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--out", required=True)
    parser.add_argument("--token")
    parser.add_argument("--pause-ms", type=int, default=0)
    args = parser.parse_args()
    with open(args.events, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    work = queue.Queue()
    for start in range(0, len(lines), args.per_request):
        work.put(start)
    url = urllib.parse.urlparse(args.url)
    lock = threading.Lock()
    out = open(args.out, "w", encoding="utf-8")

    def send():
        while True:
            try:
                start = work.get_nowait()
            except queue.Empty:
                return
            body = "[" + ",".join(lines[start:start + args.per_request]) + "]"
            headers = {"Content-Type": "application/json"}
            if args.token:
                headers["Authorization"] = "Bearer " + args.token
            answer = {"first": start, "count": len(lines[start:start + args.per_request])}
            try:
                connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
                connection.request("POST", "/v1/daily-values", body=body, headers=headers)
                response = connection.getresponse()
                text = response.read()
                answer["status"] = response.status
                if response.status == 202:
                    answer["receipts"] = [[r["partition"], r["offset"]] for r in json.loads(text)["receipts"]]
                connection.close()
            except (OSError, http.client.HTTPException) as error:
                answer["status"] = 0
                answer["error"] = str(error)
            with lock:
                out.write(json.dumps(answer) + "\n")
                out.flush()
            time.sleep(args.pause_ms / 1000)

    threads = [threading.Thread(target=send) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.close()


if __name__ == "__main__":
    main()
