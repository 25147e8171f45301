"""storq: analysis of storq results files (numpy, h5py, pandas, matplotlib).

    import storq
    with storq.open("run.h5") as r:
        print(r.table())
        storq.plot.convergence(r, x="n", name="u_l1")
"""
from . import plot
from .results import FORMAT, MAJOR, FormatError, Results, open

__all__ = ["FORMAT", "MAJOR", "FormatError", "Results", "open", "plot"]
