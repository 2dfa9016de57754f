"""routelab from Python: ctypes over libroutelab, numpy arrays in and out
(docs/library.md#library; README "From Python").

    import routelab
    routelab.mixing_window('so2', d=64, block=31, angles='uniform')   # eps: 0.01, as the CLI
    U = routelab.sample('haar', d=8, count=4, seed=1)        # (4, 8, 8)
    routelab.farmass_lower(65024, 8, np.linspace(0, 4, 9))   # a numpy grid

Errors: a bad input raises ValueError with the library's one-line message,
an internal failure RuntimeError, memory that runs out inside the library
MemoryError, and Ctrl-C in a long call KeyboardInterrupt; no call ends the
interpreter.  Every public function carries type hints and a numpydoc
docstring with its formula, units and the NOTES.md section it comes from.
"""

from __future__ import annotations

from ._lib import lib as _lib_handle
from .bounds import (MixStay, alibi, alibi_log, beta_coord_cdf, beta_tail, farmass_admissible,
                     farmass_admissible_log, farmass_half, farmass_half_log, farmass_lower, farmass_lower_log,
                     farmass_range, farmass_range_log, farmass_upper, hoeffding, levy_so_tail, levy_tail, mixstay,
                     mixstay_block, mixstay_grid, sphere_log_mgf, value_coherent, watson_distance, window,
                     window_log)
from .family import Family, family, family_norm, mixing_window, sample
from .mc import (Farmass, Moment2, Routes, family_mean, farmass, farmass_case, mixing_case, moment2, route_grid,
                 routes)
from .model import EVAL_DTYPE, Model, Probe, load_data


def version() -> str:
    """The loaded library's version string.

    routelab_version() of libroutelab ("MAJOR.MINOR..."; api/include/routelab/version.h).

    Returns
    -------
    str
        The version, "MAJOR.MINOR" (and more parts where the library has
        them).

    Raises
    ------
    RuntimeError
        The library lacks routelab_version.

    Examples
    --------
    >>> version().count(".") >= 1
    True
    """
    import ctypes
    f = getattr(_lib_handle, "routelab_version", None)
    if f is None:
        raise RuntimeError("routelab: routelab_version is not in the library")
    f.restype = ctypes.c_char_p
    f.argtypes = []
    return f().decode()


try:  # an installed package: the version it was built with (setup.py)
    from ._version import __version__
except ImportError:  # the repository's tree: the loaded library's
    __version__ = version()

__all__ = ["__version__", "alibi", "alibi_log", "beta_coord_cdf", "beta_tail", "farmass_admissible", "farmass_admissible_log",
           "farmass_half", "farmass_half_log", "farmass_lower", "farmass_lower_log", "farmass_range",
           "farmass_range_log", "farmass_upper", "hoeffding", "levy_so_tail", "levy_tail", "sphere_log_mgf",
           "value_coherent", "window", "window_log", "MixStay", "mixstay", "mixstay_block", "mixstay_grid",
           "watson_distance", "Family", "family", "mixing_window", "family_norm", "sample",
           "Farmass", "farmass", "farmass_case", "Moment2", "moment2", "Routes", "family_mean", "mixing_case", "route_grid", "routes", "EVAL_DTYPE", "Model", "Probe",
           "load_data", "version"]
