"""storq: analysis of storq results files (numpy, h5py, pandas, matplotlib; xarray for to_xarray).

    import storq
    with storq.open("run.h5") as r:
        r.frame()                      # tidy: one row per point and one-number quantity
        r.wide()                       # one row per point
        r.histogram(0, "job_delay")    # bins with density and CDF
        r.quantiles(0, "job_delay")    # with their error bound from the binning
        r.vector(0, "u")               # with its axis and theory
        r.to_xarray()                  # the sweep for multi-parameter slicing
        storq.plot.convergence(r, x="n", name="u_l1")
"""
from . import plot
from .frames import Run, frame, histogram, open, quantiles, vector, wide
from .errors import DamagedFile, FormatError
from .results import FORMAT, MAJOR, Results

__version__ = "0.1.0"

__all__ = ["FORMAT", "MAJOR", "FormatError", "DamagedFile", "Results", "Run", "open", "plot", "frame", "wide",
           "histogram", "quantiles", "vector", "__version__"]
