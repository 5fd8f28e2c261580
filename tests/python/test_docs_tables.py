"""The docs' builtin and method tables (scripts/docs_hooks.py, `<!-- generated: builtins -->`
and `methods`) show every row of the table with its signature and doc."""

import importlib.util

import tack

from conftest import ROOT


def docs_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "scripts" / "docs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_builtins_table_shows_every_signature_and_doc():
    text = docs_hooks().builtins_table()
    for _name, _category, signature, doc, _module in tack._tack._builtins():
        assert f"`{signature}`" in text, signature
        assert doc in text, doc
    for _category, title in tack._tack._builtin_categories():
        assert f"| {title} |" in text, title
    for name, meaning in tack._tack._builtin_types():
        assert f"- `{name}`: {meaning}" in text, name


def test_methods_table_shows_every_signature():
    text = docs_hooks().methods_table()
    for _name, receiver, signature, doc in tack._tack._builtin_methods():
        assert f"| `{signature}` | {receiver} | {doc} |" in text, signature


def test_environment_table_has_a_row_for_each_variable_read_and_none_other():
    # Issue 24: the table showed C++ internals ("nullopt", "(C29)") and env.hpp named a variable
    # nothing read. Rows are now the core's own table, in a user's words.
    hooks = docs_hooks()
    rows = dict(tack._tack._environment())
    read = hooks.environment_readers()
    assert sorted(rows) == sorted(read)
    text = hooks.environment_table()
    for name, meaning in rows.items():
        assert f"| `{name}` | {hooks.cell(meaning)} |" in text
        assert "nullopt" not in meaning and "CompileError" not in meaning, name
