"""The shared fake provider itself (tests/fakeserver.py): routing, defaults, concurrency."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.fakeserver import FakeProvider, Reply, openai_completion, running_provider


def test_script_then_default_and_records(fake_provider: FakeProvider) -> None:
    fake_provider.script({"n": 1}, Reply(status=418, body="teapot", headers={"X-Fake": "yes"}))
    with httpx.Client(base_url=fake_provider.url) as client:
        first = client.post("/v1/chat/completions", json={"q": 1}, headers={"X-Test": "a"})
        second = client.post("/chat/completions", json={"q": 2})
        third = client.post("/v1/messages", content=b"raw bytes")
    assert first.status_code == 200 and first.json() == {"n": 1}
    assert second.status_code == 418 and second.text == "teapot"
    assert second.headers["x-fake"] == "yes"
    assert third.status_code == 500 and "script exhausted" in third.text
    reqs = fake_provider.requests
    assert [r.path for r in reqs] == ["/v1/chat/completions", "/chat/completions", "/v1/messages"]
    assert reqs[0].json == {"q": 1} and reqs[0].headers["x-test"] == "a"
    assert reqs[2].json is None and reqs[2].body == b"raw bytes"
    assert fake_provider.count == 3 and fake_provider.pending == 0


def test_unknown_route_does_not_consume(fake_provider: FakeProvider) -> None:
    fake_provider.script({"kept": True})
    with httpx.Client(base_url=fake_provider.url) as client:
        assert client.post("/v1/other", json={}).status_code == 404
        assert client.get("/v1/chat/completions").status_code == 404
        assert client.post("/v1/chat/completions", json={}).json() == {"kept": True}
    assert fake_provider.count == 3


def test_callable_behaviour_and_reset() -> None:
    with running_provider(default=lambda body: {"got": body}) as fake:
        with httpx.Client(base_url=fake.url) as client:
            assert client.post("/v1/messages", json={"x": 2}).json() == {"got": {"x": 2}}
        fake.reset()
        assert fake.count == 0


def test_sixteen_concurrent_clients() -> None:
    def answer(body: dict[str, int]) -> Reply:
        return Reply(json=openai_completion(json.dumps(body)), delay_s=0.05)

    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
    with (
        FakeProvider(default=answer) as fake,
        httpx.Client(base_url=fake.openai_base, timeout=5, limits=limits) as client,
    ):

        def call(i: int) -> str:
            body = client.post("/chat/completions", json={"i": i}).json()
            return str(body["choices"][0]["message"]["content"])

        with ThreadPoolExecutor(max_workers=16) as pool:
            results = list(pool.map(call, range(48)))
        assert results == [json.dumps({"i": i}) for i in range(48)]
        assert fake.count == 48
        assert sorted(r.json["i"] for r in fake.requests) == list(range(48))
