"""Questions that a lower layer asks of the modules above it, each answered by the one
function registered for it (typing/families.py and codegen/families.py ask the type
families in library/ so): the asker names no module above it, and a question nobody was
declared to ask cannot be answered by mistake."""
from __future__ import annotations


class Questions:
    def __init__(self, *questions):
        self._questions = frozenset(questions)
        self._answers = {}   # question -> the function that answers it

    def answers(self, question):
        """Register the decorated function as the answer to `question` (one of those this
        object was made with)."""
        assert question in self._questions, question

        def register(fn):
            self._answers[question] = fn
            return fn
        return register

    def ask(self, question, *args):
        return self._answers[question](*args)
