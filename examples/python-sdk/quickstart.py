"""Cairn from Python: remember and recall a fact, then run code in a sandbox that is destroyed
afterwards. Needs a running server and an API key:

    CAIRN_BASE_URL=http://127.0.0.1:8090 CAIRN_API_KEY=cairn_... python examples/python-sdk/quickstart.py

(install the SDK first: pip install ./sdks/python)
"""

from __future__ import annotations

import sys

from cairn import CairnClient, CairnError, QuotaExceededError


def main() -> int:
    # The base URL and key come from CAIRN_BASE_URL and CAIRN_API_KEY.
    with CairnClient(retry=True) as cairn:
        print(f"signed in as {cairn.account()['email']}")

        fact = cairn.remember("The release train leaves every second Wednesday.", kind="fact")
        found = cairn.recall("when does the release train leave?", limit=3)
        print(f"recalled: {found['memories'][0]['content']}")

        try:
            with cairn.sandbox(label="python quickstart") as sandbox:
                sandbox.file_create(
                    "fib.py",
                    "a, b = 0, 1\nfor _ in range(10):\n    a, b = b, a + b\nprint(a)\n",
                )
                result = sandbox.exec("python3 fib.py")
                print(f"sandbox said: {result['stdout'].strip()} (exit {result['exit_code']})")
        except QuotaExceededError as error:
            print(f"no sandbox for now: {error.message}", file=sys.stderr)
            return 1
        print(f"sandbox {sandbox.id} destroyed: {cairn.get_sandbox(sandbox.id)['status'] == 'destroyed'}")

        cairn.forget_memory(fact["id"])
        print("forgot the fact")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CairnError as error:
        print(f"Error: {error}", file=sys.stderr)
        sys.exit(1)
