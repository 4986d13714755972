"""Random loss for the interop tests (the kernel has no netem): an nftables table of the test's
own, with one rule on the input hook of the test's namespace that drops `percent`% of the
datagrams matching `match`, so the sender sees no error. A table per test, deleted after."""

import subprocess


def drop(table: str, match: str, percent: int) -> None:
    """Drops `percent`% of what `match` (an nft match, such as `udp dport 5000`) selects,
    replacing any rule the table had."""
    stop(table)
    for command in (f"add table inet {table}",
                    f"add chain inet {table} input {{ type filter hook input priority 0; }}",
                    f"add rule inet {table} input {match} numgen random mod 100 < {percent} drop"):
        subprocess.run(["nft", *command.split()], check=True)


def stop(table: str) -> None:
    subprocess.run(["nft", "delete", "table", "inet", table], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
