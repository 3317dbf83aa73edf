"""The streaming JSON reader accepts exactly what `json.loads` accepts, in any layout,
whatever the read window cuts through, and reports errors where `json.loads` does."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aniso.data.jsonstream import JsonReader, JsonSyntaxError

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from(list('ab "\\\n\tжé€😀\u2028')), max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)
LAYOUTS = st.sampled_from(
    [
        {},
        {"indent": 2},
        {"indent": 0},
        {"separators": (",", ":")},
        {"ensure_ascii": False},
        {"indent": "\t", "ensure_ascii": False},
    ]
)
WINDOWS = st.integers(1, 9)


def walk(reader: JsonReader, depth: int = 0) -> Any:
    """Rebuild a value through the streaming calls: containers key by key, element by element."""
    char = reader.peek()
    if char == "{" and depth % 2 == 0:
        return {key: walk(reader, depth + 1) for key in reader.members()}
    if char == "[" and depth % 2 == 0:
        return [walk(reader, depth + 1) for _ in reader.elements()]
    return reader.value()


def read_all(text: str, window: int) -> Any:
    reader = JsonReader(io.StringIO(text), chunk=window)
    value = walk(reader)
    reader.end()
    return value


@settings(max_examples=300, deadline=None)
@given(value=VALUES, layout=LAYOUTS, window=WINDOWS)
def test_every_layout_reads_back_equal(value: Any, layout: dict, window: int) -> None:
    text = json.dumps(value, **layout)
    assert read_all(text, window) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(value=VALUES, layout=LAYOUTS, window=WINDOWS, data=st.data())
def test_a_cut_or_edited_text_fails_where_json_loads_fails(
    value: Any, layout: dict, window: int, data: st.DataObject
) -> None:
    text = json.dumps(value, **layout)
    cut = data.draw(st.integers(0, len(text)))
    edit = data.draw(st.sampled_from(["cut", "insert", "delete"]))
    if edit == "cut":
        broken = text[:cut]
    elif edit == "insert":
        broken = text[:cut] + data.draw(st.sampled_from(list(',:[]{}"x\\'))) + text[cut:]
    else:
        broken = text[:cut] + text[cut + 1 :]
    try:
        expected = json.loads(broken)
    except json.JSONDecodeError as error:
        with pytest.raises(JsonSyntaxError) as caught:
            read_all(broken, window)
        assert caught.value.line == error.lineno, (broken, caught.value, error)
        return
    assert read_all(broken, window) == expected


@pytest.mark.parametrize("window", [1, 3, 1 << 20])
def test_errors_name_line_and_column_in_the_whole_file(window: int) -> None:
    text = '{"a": [1,\n 2,\n 3 x]}'
    with pytest.raises(JsonSyntaxError) as caught:
        read_all(text, window)
    assert (caught.value.line, caught.value.column) == (3, 4)
    assert caught.value.msg == "Expecting ',' delimiter"
