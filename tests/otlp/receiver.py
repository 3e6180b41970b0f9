#!/usr/bin/env python3
"""An OTLP/HTTP JSON receiver for tests/export.rs, built on the official protocol definitions
(`opentelemetry-proto` from PyPI): every request body is parsed with
google.protobuf.json_format.Parse into ExportLogsServiceRequest or ExportMetricsServiceRequest,
so a body that is not the protobuf JSON mapping (a wrong field name, an int64 not a string, an
unknown field) is refused with 400 and written to the errors file, which the test reads.

    receiver.py PORT OUT_DIR

PORT 0 picks a free port; the port is printed on the first line of stdout. What it takes:
- OUT_DIR/logs.jsonl: one line per log record, in arrival order: its resource attributes,
  its attributes and body, flattened to plain JSON values;
- OUT_DIR/requests.jsonl: every logs request taken, one a line, as a collector's file
  exporter writes them (what `sentinel report --otlp` reads);
- OUT_DIR/metrics.jsonl: one line per metrics request (every data point, flattened);
- OUT_DIR/errors.jsonl: every request it refused as malformed;
- OUT_DIR/mode: read on every request: `ok` (the default) takes it; `500` answers HTTP 500
  without taking it; `lost` takes it and then answers 500 (the response lost: the sender must
  resend, and the ids tell the copies apart).
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)


def value(v):
    """An AnyValue as a plain JSON value."""
    kind = v.WhichOneof("value")
    if kind == "string_value":
        return v.string_value
    if kind == "int_value":
        return v.int_value
    if kind == "bool_value":
        return v.bool_value
    if kind == "double_value":
        return v.double_value
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in v.kvlist_value.values}
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    return None


def attrs(kvs):
    return {kv.key: value(kv.value) for kv in kvs}


class Handler(BaseHTTPRequestHandler):
    out = "."

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"{}"):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def append(self, name, lines):
        with open(os.path.join(self.out, name), "a") as f:
            for line in lines:
                f.write(json.dumps(line) + "\n")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            mode = open(os.path.join(self.out, "mode")).read().strip()
        except OSError:
            mode = "ok"
        if mode == "500":
            return self.answer(500)
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            self.append("errors.jsonl", [{"path": self.path, "error": "content type"}])
            return self.answer(415)
        try:
            if self.path == "/v1/logs":
                req = json_format.Parse(body, ExportLogsServiceRequest())
                lines = []
                for rl in req.resource_logs:
                    resource = attrs(rl.resource.attributes)
                    for sl in rl.scope_logs:
                        for r in sl.log_records:
                            lines.append(
                                {
                                    "resource": resource,
                                    "scope": sl.scope.name,
                                    "time_unix_nano": r.time_unix_nano,
                                    "severity_number": r.severity_number,
                                    "severity_text": r.severity_text,
                                    "body": value(r.body),
                                    "attributes": attrs(r.attributes),
                                }
                            )
                self.append("logs.jsonl", lines)
                # As a collector's file exporter writes it: one request a line.
                self.append("requests.jsonl", [json.loads(body)])
            elif self.path == "/v1/metrics":
                req = json_format.Parse(body, ExportMetricsServiceRequest())
                points = []
                for rm in req.resource_metrics:
                    for sm in rm.scope_metrics:
                        for m in sm.metrics:
                            if m.WhichOneof("data") != "sum":
                                raise ValueError("not a sum: " + m.name)
                            if m.sum.aggregation_temporality != 2 or not m.sum.is_monotonic:
                                raise ValueError("not a cumulative monotonic sum: " + m.name)
                            for p in m.sum.data_points:
                                points.append(
                                    {
                                        "name": m.name,
                                        "attributes": attrs(p.attributes),
                                        "value": p.as_int,
                                        "start": p.start_time_unix_nano,
                                        "time": p.time_unix_nano,
                                    }
                                )
                self.append("metrics.jsonl", [{"host": attrs(rm.resource.attributes).get("host.name"), "points": points}])
            else:
                return self.answer(404)
        except Exception as e:  # a malformed body: refused for good, and said
            self.append("errors.jsonl", [{"path": self.path, "error": str(e)}])
            return self.answer(400, json.dumps({"error": str(e)}).encode())
        if mode == "lost":
            return self.answer(500)
        return self.answer(200)


def main():
    port, out = int(sys.argv[1]), sys.argv[2]
    Handler.out = out
    server = HTTPServer(("127.0.0.1", port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
