"""Deliberately broken DLPack producers for the self-test of `python -m
godlpack check` (tests_py/test_check.py): each module is an array-API
namespace (``asarray``) whose arrays wrap numpy's and break one rule. Every
break is made on numpy's own answer, so each module fails exactly the checks
of its break."""
