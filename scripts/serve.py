#!/usr/bin/env python3
"""Serves the page on 127.0.0.1 and prints its address: index.html, www/, pkg/ and dist/
only (with --dev also the test pages, the benchmark pages and node_modules/, for the test
and benchmark scripts); nothing else of the repository, no dot-file, no directory listing.
Every response may be used by any origin (CORS), so that another site can load the custom
element, and is never cached. Usage: scripts/serve.py [--dev] [port] (0 = any free port;
the address line is printed once the socket listens). A path with a NUL or that is not
percent-encoded UTF-8 is answered 400; a request line over http.server's 64 KiB limit gets
a small page that says the link is too long."""

import functools
import http.server
import posixpath
import sys
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What the page needs (dist/ is the same page, packaged for authors).
PAGE = ("www/", "pkg/", "dist/")
# What the test and benchmark scripts add with --dev.
DEV = ("tests/e2e/", "bench/", "node_modules/")


def malformed(url_path):
    """Whether the request path cannot name a file: a NUL, or not percent-encoded UTF-8."""
    try:
        path = urllib.parse.unquote(urllib.parse.urlsplit(url_path).path, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return True
    return "\x00" in path


TOO_LONG = """<!doctype html><html lang="en"><meta charset="utf-8"><title>Link too long</title>
<h1>This link is too long</h1>
<p>Its address is over 64 KiB, more than this server reads. Links of Attention Playground are
short (a few settings); this one was cut or made by hand. <a href="/">Open the page without
it</a>.</p></html>
"""


def allowed(url_path, prefixes):
    """Whether the request path names what the server shows: the root, index.html, or a
    file or folder under one of `prefixes`, with no segment that starts with a dot."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url_path).path)
    parts = [p for p in path.split("/") if p]
    if any(p.startswith(".") for p in parts):
        return False
    norm = posixpath.normpath("/" + "/".join(parts)).lstrip("/")
    if norm in ("", ".", "index.html"):
        return True
    # A folder is served as its index.html, if any (never as a listing).
    return any(norm.startswith(p) or norm == p.rstrip("/") for p in prefixes)


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".css": "text/css",
        ".json": "application/json",
    }
    prefixes = PAGE

    def send_head(self):
        if malformed(self.path):
            self.send_error(400, "Malformed path")
            return None
        if not allowed(self.path, self.prefixes):
            self.send_error(404, "Not served")
            return None
        return super().send_head()

    def send_error(self, code, message=None, explain=None):
        if code != 414:
            return super().send_error(code, message, explain)
        body = TOO_LONG.encode("utf-8")
        self.send_response(414, "Link too long")
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return None

    def list_directory(self, path):
        self.send_error(404, "Not served")
        return None

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        # Another site may load the element (www/element.js) and its frame's files.
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        super().end_headers()

    def log_message(self, fmt, *args):  # quiet: one line per error only
        if len(args) > 1 and str(args[1])[:1] in "45":
            sys.stderr.write("%s\n" % (fmt % args))


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A page that stops a worker mid-download closes the connection: not an error.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    args = sys.argv[1:]
    dev = "--dev" in args
    args = [a for a in args if a != "--dev"]
    port = int(args[0]) if args else 8080
    handler = functools.partial(Handler, directory=str(ROOT))
    if dev:
        Handler.prefixes = PAGE + DEV
    server = Server(("127.0.0.1", port), handler)
    print(f"Attention Playground at http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
