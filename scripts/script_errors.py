"""Bad input to a script ends as it does for cclab's tools: one line on stderr, exit 2.

    from script_errors import guard
    guard(main, "usage: x.py FILE")

runs main(): too few arguments print the usage line; a missing, unreadable or malformed file
(OSError, ValueError, KeyError, TypeError, IndexError) prints "x.py: <what>"; sys.exit("message")
prints the message; each exits 2. main()'s own return value is the exit code otherwise.
"""
import os
import sys


def guard(main, usage, min_args=1):
    name = os.path.basename(sys.argv[0])
    if len(sys.argv) - 1 < min_args:
        print(usage, file=sys.stderr)
        sys.exit(2)
    try:
        code = main()
    except SystemExit as e:
        if isinstance(e.code, str):  # sys.exit("what is wrong")
            print(e.code.strip().splitlines()[0] if e.code.strip() else usage, file=sys.stderr)
            sys.exit(2)
        raise
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        print(f"{name}: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
    sys.exit(code or 0)
