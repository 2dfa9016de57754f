"""The Python API documents itself (numpydoc docstrings and
type hints).  Every public callable of the package -- the functions of
`routelab.__all__`, the public methods and properties of Family, Model and the
result dataclasses, and the constructors of Family and Model (documented in
their class docstrings) -- has a numpydoc docstring with a one-line summary,
a "Parameters" section naming exactly the signature's parameters (no stale or
missing names) when it takes any besides self, and a "Returns" section unless
it returns None; every parameter and the return carry an annotation."""

import inspect
import re

import pytest

import routelab

SECTIONS = ("Parameters", "Returns", "Yields", "Raises", "Warns", "See Also", "Notes", "References", "Examples",
            "Attributes", "Methods", "Other Parameters")


def _public_callables():
    """(qualified name, callable, kind) of every public callable; kind is
    'function', 'method', 'property' or 'class' (the constructor)."""
    out = []
    for name in routelab.__all__:
        obj = getattr(routelab, name)
        if inspect.isclass(obj):
            if name in ("Family", "Model"):
                out.append((name, obj, "class"))
            for mname, m in sorted(vars(obj).items()):
                if mname.startswith("_"):
                    continue
                if isinstance(m, property):
                    out.append(("%s.%s" % (name, mname), m, "property"))
                elif isinstance(m, (classmethod, staticmethod)):
                    out.append(("%s.%s" % (name, mname), getattr(obj, mname), "method"))
                elif inspect.isfunction(m):
                    out.append(("%s.%s" % (name, mname), m, "method"))
        elif inspect.isfunction(obj):
            out.append((name, obj, "function"))
    return out


CALLABLES = _public_callables()
IDS = [c[0] for c in CALLABLES]


def sections(doc):
    """A numpydoc docstring's sections: {title: [lines]} (the summary under '')."""
    lines = inspect.cleandoc(doc).splitlines()
    out, cur = {"": []}, ""
    i = 0
    while i < len(lines):
        if (i + 1 < len(lines) and lines[i].strip() in SECTIONS and re.fullmatch(r"-{3,}", lines[i + 1].strip())
                and len(lines[i + 1].strip()) == len(lines[i].strip())):
            cur = lines[i].strip()
            if cur in out:
                raise AssertionError("section %r twice" % cur)
            out[cur] = []
            i += 2
            continue
        out[cur].append(lines[i])
        i += 1
    return out


def documented_params(lines):
    """The names a Parameters section documents: its lines at the section's
    own indentation ("name : type", "a, b : int", "**params")."""
    names = []
    for ln in lines:
        if not ln.strip() or ln[:1].isspace():
            continue
        head = ln.split(" : ", 1)[0].strip()
        for n in head.split(","):
            n = n.strip().lstrip("*")
            if n:
                names.append(n)
    return names


def _target(obj, kind):
    if kind == "property":
        return obj.fget
    if kind == "class":
        return obj.__init__
    return obj


def signature_params(obj, kind):
    sig = inspect.signature(_target(obj, kind))
    ps = list(sig.parameters.values())
    if kind != "function" and ps and ps[0].name in ("self", "cls"):
        ps = ps[1:]
    return sig, ps


def test_the_package_exports_callables():
    kinds = {k for _, _, k in CALLABLES}
    assert kinds == {"function", "method", "property", "class"}, kinds
    assert len(CALLABLES) > 40


@pytest.mark.parametrize("name,obj,kind", CALLABLES, ids=IDS)
def test_every_parameter_and_the_return_are_annotated(name, obj, kind):
    sig, ps = signature_params(obj, kind)
    missing = [p.name for p in ps if p.annotation is inspect.Parameter.empty]
    assert not missing, "%s: parameters without a type hint: %s" % (name, missing)
    if kind != "class":
        assert sig.return_annotation is not inspect.Signature.empty, "%s: no return annotation" % name


@pytest.mark.parametrize("name,obj,kind", CALLABLES, ids=IDS)
def test_every_docstring_is_numpydoc_with_parameters_and_returns(name, obj, kind):
    doc = obj.__doc__
    assert doc and doc.strip(), "%s has no docstring" % name
    sec = sections(doc)
    summary = [ln for ln in sec[""] if ln.strip()]
    assert summary, "%s: no summary" % name
    first = inspect.cleandoc(doc).splitlines()[0]
    assert first.strip() and (len(inspect.cleandoc(doc).splitlines()) == 1
                              or not inspect.cleandoc(doc).splitlines()[1].strip()), \
        "%s: the summary is not one line followed by a blank line" % name
    sig, ps = signature_params(obj, kind)
    if ps:
        assert "Parameters" in sec, "%s takes %s but has no Parameters section" % (name, [p.name for p in ps])
        doc_names = documented_params(sec["Parameters"])
        sig_names = [p.name for p in ps]
        stale = [n for n in doc_names if n not in sig_names]
        assert not stale, "%s: Parameters documents names the signature lacks: %s" % (name, stale)
        undocumented = [n for n in sig_names if n not in doc_names]
        assert not undocumented, "%s: parameters not in its Parameters section: %s" % (name, undocumented)
        assert len(doc_names) == len(set(doc_names)), "%s: a parameter documented twice" % name
    if kind != "class":
        ret = sig.return_annotation
        if ret not in ("None", None, inspect.Signature.empty):
            assert "Returns" in sec and any(ln.strip() for ln in sec["Returns"]), \
                "%s returns %s but has no Returns section" % (name, ret)


def test_the_section_parser_reads_numpydoc():
    doc = """Summary.

    Extended.

    Parameters
    ----------
    a, b : int
        Two.
    **params
        Flags.

    Returns
    -------
    float
        A number.
    """
    sec = sections(doc)
    assert documented_params(sec["Parameters"]) == ["a", "b", "params"]
    assert [ln for ln in sec["Returns"] if ln.strip()][0] == "float"


@pytest.mark.parametrize("module", ["routelab", "routelab.bounds", "routelab.family", "routelab.mc",
                                    "routelab.model"])
def test_the_examples_print_what_they_say(module):
    """The Examples sections run (doctest) and print their outputs."""
    import doctest
    import importlib
    mod = importlib.import_module(module)
    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0, "%s: %d of %d examples failed" % (module, res.failed, res.attempted)
    if module != "routelab.model":  # the model's examples would need a trained checkpoint
        assert res.attempted > 0
