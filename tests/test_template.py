"""The SAM template sets only settings the service reads, and passes its parameters on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from noughts.search.core import PURE_PYTHON_VARIABLE
from noughts.service.settings import Settings

TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"


class _CloudFormationLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags (``!Ref X`` becomes ``{"Ref": "X"}``)."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        assert isinstance(node, yaml.MappingNode)
        value = loader.construct_mapping(node, deep=True)
    return {suffix if suffix == "Ref" else f"Fn::{suffix}": value}


_CloudFormationLoader.add_multi_constructor("!", _tag)


def load() -> dict[str, Any]:
    template: dict[str, Any] = yaml.load(TEMPLATE.read_text(), Loader=_CloudFormationLoader)
    return template


def test_every_variable_is_a_setting() -> None:
    function = load()["Resources"]["MoveFunction"]["Properties"]
    variables = function["Environment"]["Variables"]
    fields = {f"NOUGHTS_{name.upper()}" for name in Settings.model_fields}
    assert set(variables) <= fields | {PURE_PYTHON_VARIABLE}


def test_the_compiled_core_runs_unless_the_python_core_is_asked_for() -> None:
    # The variable is an override, a parameter that defaults to the compiled core (the
    # Python core takes over by itself where the extension cannot load: test_lambda.py).
    template = load()
    variables = template["Resources"]["MoveFunction"]["Properties"]["Environment"]["Variables"]
    assert variables[PURE_PYTHON_VARIABLE] == {"Ref": "PurePython"}
    parameter = template["Parameters"]["PurePython"]
    assert parameter["Default"] == "0" and parameter["AllowedValues"] == ["0", "1"]


def test_the_cache_url_and_its_network_are_parameters() -> None:
    template = load()
    parameters = template["Parameters"]
    assert parameters["CacheUrl"]["Default"] == "" and parameters["CacheUrl"]["NoEcho"]
    function = template["Resources"]["MoveFunction"]["Properties"]
    assert function["Environment"]["Variables"]["NOUGHTS_CACHE_URL"] == {"Ref": "CacheUrl"}
    condition, in_vpc, outside = function["VpcConfig"]["Fn::If"]
    assert condition in template["Conditions"] and outside == {"Ref": "AWS::NoValue"}
    assert in_vpc["SubnetIds"] == {"Ref": "CacheSubnetIds"}
    # an empty URL (the parameter's default) means no shared cache
    assert Settings(cache_url=parameters["CacheUrl"]["Default"]).cache_url is None
