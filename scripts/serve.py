"""Static server for the browser app (www/) on 127.0.0.1.

Sends .wasm as application/wasm and .js as text/javascript (module Workers and
WebAssembly.instantiateStreaming need both). Where FILE.gz exists beside FILE and is not older
than it, a client whose Accept-Encoding allows gzip gets the compressed copy with
Content-Encoding: gzip (and Vary: Accept-Encoding); scripts/build-wasm.sh writes those copies.

Usage: python3 scripts/serve.py PORT DIRECTORY
"""

import http.server
import os
import sys


def accepts_gzip(header):
    for part in (header or "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip()
            if q.startswith("q="):
                try:
                    return float(q[2:]) > 0
                except ValueError:
                    return False
            return True
    return False


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
    }

    def send_head(self):
        path = self.translate_path(self.path)
        gz = path + ".gz"
        if (
            os.path.isfile(path)
            and os.path.isfile(gz)
            and os.path.getmtime(gz) >= os.path.getmtime(path)
            and accepts_gzip(self.headers.get("Accept-Encoding"))
        ):
            f = open(gz, "rb")
            st = os.fstat(f.fileno())
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(st.st_size))
            self.send_header("Last-Modified", self.date_time_string(st.st_mtime))
            self.end_headers()
            return f
        return super().send_head()

    def end_headers(self):
        if not self._headers_buffer or b"Vary" not in b"".join(self._headers_buffer):
            self.send_header("Vary", "Accept-Encoding")
        super().end_headers()


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    directory = sys.argv[2] if len(sys.argv) > 2 else "www"

    def handler(*a, **k):
        return Handler(*a, directory=directory, **k)

    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as srv:
        srv.serve_forever()


if __name__ == "__main__":
    main()
