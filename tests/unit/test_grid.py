"""docs/contract.md, Autotune: every rule, on real OpenCL."""



from clmodes.tune import grid


def test_grid_names_and_filter():
    variants = grid({"B": [1, 2], "A": ["x"]}, local_sizes=[8, (4, 2)],
                    where=lambda v: not (v["B"] == 2 and v.local_size == (8,)))
    assert [v.name for v in variants] == [
        "A=x,B=1 local=8", "A=x,B=1 local=4x2", "A=x,B=2 local=4x2",
    ]


