#!/usr/bin/env python3
# moto_server with its requests handled one at a time (same -H/-p flags).
#
# moto's in-memory S3 backend is not thread-safe, and moto_server serves each
# request on its own thread: a ListObjectVersions that ran while another
# request wrote the same bucket failed with HTTP 500 ("'NoneType' object is
# not iterable" in list_object_versions; seen in .ci/run with several
# executors deleting in one bucket at once). Real S3 has no such failure, so
# every local S3 of this project (.ci/run, the test helper, the demo, the
# benchmarks: src/dev/local-s3.ts) runs moto through this wrapper. Connections
# are still served on threads; only the application call, with its response
# read to the end, holds the lock.
import argparse
import os
import signal
import sys
import threading

from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=int(os.environ.get("MOTO_PORT", 5000)))
    args = parser.parse_args()
    os.environ.setdefault("MOTO_PORT", str(args.port))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))

    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def one_at_a_time(environ, start_response):
        with lock:
            return list(app(environ, start_response))

    run_simple(args.host, args.port, one_at_a_time, threaded=True)


if __name__ == "__main__":
    main()
