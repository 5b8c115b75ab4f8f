"""``dpproofs list``: the registered claims with their sources and statements."""

HELP = "list the registered claims: id, expected verdict, source, statement"

__all__ = ["HELP", "add_arguments", "run", "render"]


def add_arguments(parser):
    parser.add_argument("ids", nargs="*", metavar="ID",
                        help="claim ids, or glob patterns ('PAPER.RESULT.*', 'PAPER*'); none: all")
    parser.add_argument("--prefix", action="store_true",
                        help="an ID also selects the claims under it (PAPER.RESULT selects PAPER.RESULT.*)")


def run(args):
    from dpproofs.checker import registry

    rows = [
        {
            "id": c.id,
            "kind": c.kind,
            "expected": c.expected,
            "source": c.source,
            "title": c.title,
            "statement": c.describe(),
        }
        for c in registry.select(args.ids, prefix=getattr(args, "prefix", False))
    ]
    return 0, {"claims": rows}


def render(result):
    lines = []
    for row in result["claims"]:
        lines.append(f"{row['id']}  [{row['kind']}, expected {row['expected']}]  {row['source']}")
        if row["title"]:
            lines.append(f"    {row['title']}")
        lines.append(f"    {row['statement']}")
    lines.append(f"{len(result['claims'])} claims")
    return "\n".join(lines)
