"""Which `for` loop variables borrow their item from the list they walk, uncounted.

A local owns a reference (lower.py), so `for p in particles` would count each item up as
`p` takes it and down as `p` moves on: two atomic operations per item, which cost more than
a small method's whole body. The list holds each of its items and the loop holds the list,
so `p` can borrow its item as a function borrows its arguments, provided nothing takes
the item out of the list (pop, remove, clear, a store over it) while `p` still names it.
Every condition here is conservative; any doubt leaves the local owning:

- `p` is bound by this loop alone (no other assignment, `del`, parameter, handler, nested
  function of that name), read only inside the loop's body (not after the loop, where
  Python leaves it bound, nor in a nested function or lambda, which could outlive the loop);
- the function is not a generator (while it is suspended its caller could change the
  list) and the body holds no `with` (objmode) block;
- no value the body handles (each expression, each call's arguments and result) can lead
  to a list of the loop's item type: a list of that type, or a container, tuple or object
  whose fields can hold one; a value whose contents are not known here (a generator, a
  pointer, an iterator) counts as leading to it;
- nothing the function runs, its callees included (TypingContext.callees), can run code
  kiln did not compile: a foreign function (ctypes, cffi, a function pointer) or an
  objmode block (`runs_python`). Code that the library types only while generating the
  function's code (call_python), out of sight here, counts as such code where it could
  call the user's: a function passed as a value, a jitclass with dunder methods.
A consumer that keeps `p` (a store into a list, a return) takes a reference of its own,
as for any borrowed value."""
from __future__ import annotations

import ast

from .. import types as t
from .ownership import has_refs


def borrowed_loop_names(typed, tctx) -> set:
    """The names of the loop variables of `typed` that borrow their items (see above)."""
    if typed.generator:
        return set()
    loops = [node for node in ast.walk(typed.ir.node) if isinstance(node, ast.For)
             and isinstance(node.target, ast.Name) and _walks_counted_items(typed, node)]
    if not loops:
        return set()
    bindings = _bindings(typed.ir.node)
    names = set()
    for loop in loops:
        name = loop.target.id
        body = {n for stmt in loop.body for n in ast.walk(stmt)}
        if bindings.get(name) == [loop.target] and _read_only_in(typed.ir.node, name, body) \
                and _body_keeps_list(typed, loop, body):
            names.add(name)
    if names and _calls_out(tctx, typed, set()):
        return set()
    return names


def _walks_counted_items(typed, loop):
    ty = typed.typemap.get(loop.iter)
    return isinstance(ty, t.ListType) and has_refs(ty.item_type)


def _bindings(fn_node) -> dict:
    """name -> the nodes that bind or delete it, anywhere in the function (nested ones too)."""
    found = {}
    for node in ast.walk(fn_node):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.arg):
            found.setdefault(node.arg, []).append(node)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) \
                and node is not fn_node:
            found.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                found.setdefault(name, []).append(node)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            found.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.setdefault(node.rest, []).append(node)
    return found


def _read_only_in(fn_node, name, body) -> bool:
    """Whether every read of `name` is in `body`, outside any nested function or lambda."""
    nested = {n for node in ast.walk(fn_node) if node is not fn_node
              and isinstance(node, (ast.FunctionDef, ast.Lambda, ast.AsyncFunctionDef))
              for n in ast.walk(node)}
    return all(node in body and node not in nested for node in ast.walk(fn_node)
               if isinstance(node, ast.Name) and node.id == name
               and isinstance(node.ctx, ast.Load))


def _body_keeps_list(typed, loop, body) -> bool:
    """Whether nothing in the loop's body can reach a list of its item type."""
    if any(isinstance(n, (ast.With, ast.AsyncWith, ast.Yield, ast.YieldFrom, ast.Await))
           for n in body):
        return False
    item = typed.typemap[loop.iter].item_type
    handled = [ty for node, ty in typed.typemap.items() if node in body]
    for key, res in typed.calls.items():
        if (key[0] if isinstance(key, tuple) else key) in body:
            handled += [res.signature.return_type, *res.signature.args]
    seen = set()
    return not any(_may_reach(ty, _list_of(item), seen) for ty in handled)


def _list_of(item):
    return lambda ty: isinstance(ty, t.ListType) and ty.item_type == item


def _may_reach(ty, found, seen) -> bool:
    """Whether a value of `ty` can lead to a value of a type `found` accepts (`seen`: types
    already answered False, or being answered). A type whose contents are not known here
    may lead anywhere."""
    if ty in seen:
        return False
    seen.add(ty)
    if found(ty):
        return True
    if isinstance(ty, t.MutableStruct):
        try:
            parts = list(ty.field_dict.values())
        except Exception:   # a class still being defined: its fields are not known
            return True
    elif isinstance(ty, t.ListType):
        parts = (ty.item_type,)
    elif isinstance(ty, (t.DictType, t.SetType)):
        parts = (ty.key_type, ty.value_type)
    elif isinstance(ty, t.BaseTuple):
        parts = ty.types
    elif isinstance(ty, t.Optional):
        parts = (ty.type,)
    elif isinstance(ty, t.BoundMethod):
        parts = (ty.receiver,)
    elif isinstance(ty, t.InnerFunction):   # called with the outer locals it reads
        return bool(ty.captured)
    elif isinstance(ty, (t.Array, t.Record, t.UnicodeType)):
        return False
    elif hasattr(ty, "fields"):   # a library struct (zip, enumerate) of the values it walks
        parts = ty.fields
    else:   # unknown contents: anything counted, raw pointers, a type not defined yet
        return has_refs(ty) or isinstance(ty, (t.RawPointer, t.DeferredType))
    return any(_may_reach(part, found, seen) for part in parts)


def _with_dunders(ty):
    """A jitclass instance whose `__eq__`, `__hash__`... library code may call: those are
    typed when the library's own code is (during codegen), not as the function's callees."""
    return isinstance(ty, t.ClassInstanceType) and any(
        name.startswith("__") and name != "__init__" for name in ty.class_type.methods)


def _calls_out(tctx, typed, seen) -> bool:
    """Whether `typed` or a function it calls can run code kiln did not type with it."""
    if id(typed) in seen:
        return False
    seen.add(id(typed))
    passed = [ty for res in typed.calls.values() for ty in res.signature.args]
    if any(map(_runs_foreign_code, typed.typemap.values())) or \
            any(isinstance(ty, (t.Dispatcher, t.InnerFunction, t.FunctionType))
                or _runs_foreign_code(ty) for ty in passed):
        return True
    seen_types = set()
    if any(_may_reach(ty, _with_dunders, seen_types) for ty in passed):
        return True
    return any(callee is None or _calls_out(tctx, callee, seen)
               for callee in tctx.callees(typed))


def _runs_foreign_code(ty) -> bool:
    return isinstance(ty, t.FunctionType) or getattr(ty, "runs_python", False)
