"""Anthropic's Messages API played on loopback, for the repo's scripts (bench/harness.py,
bench/day-to-day-demo.py, docs/outputs.py): it finds the canary in the system prompt, echoes it,
and answers at once with the verdict `decide(body)` gives, reporting 700 input and 50 output
tokens. The Rust tests and the e2e have stand-ins of their own (they also fail on purpose, or
play the model).

    url = standin.start(lambda body: ("ALLOW", "reason"), log="requests.jsonl")
"""
import http.server, json, re, threading


def start(decide, log=None):
    """Serves until the process ends; returns the base URL. `log`: a file each request body is
    appended to, one line each."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            raw = self.rfile.read(int(self.headers["content-length"]))
            if log:
                with open(log, "ab") as f:
                    f.write(raw + b"\n")
            body = json.loads(raw)
            canary = re.search(r"[0-9a-f]{64}", json.dumps(body["system"])).group(0)
            verdict, reason = decide(body)
            text = json.dumps({"verdict": verdict, "reason": reason, "canary": canary})
            out = json.dumps({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                              "usage": {"input_tokens": 700, "output_tokens": 50}}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"
