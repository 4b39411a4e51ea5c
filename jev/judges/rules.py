"""The offline ``rules`` judge: deterministic, zero-cost, heuristic (SPEC §5, §13).

It answers the same question as a model judge, from the numbered material alone
(:class:`~jev.domain.Numbering`), with a fixed list of general English and Chinese
rules. The first rule that fires wins; every rule names the position that is its
evidence. When no rule is sure, the verdict is ``complete``: a false alarm costs the
agent a supplement round, so precision beats recall.

Rules, in priority order (ids appear in the reply's ``rule`` key):

============================  ==============  ===============================================
rule id                       assessment      fires when
============================  ==============  ===============================================
``already-authorized``        omission        the answer asks permission for an action the
                                              request already asked for (e.g. "run it on prod
                                              too" vs "Should I also migrate prod?"), or for a
                                              command the request names (“with `helm upgrade`”)
``asks-user``                 needs-user      the answer ends by asking the user to choose,
                                              authorize, confirm or provide something needed
                                              to finish (not a trailing optional offer), or
                                              says so without a question anywhere in a turn
                                              that is visibly blocked ("I need credentials
                                              … or you can run it yourself", "until you
                                              confirm", "a decision I can't make", "需要你或
                                              财务来定"); in a turn with an open Todo or a
                                              "haven't done" note, saying it lacks a credential
                                              only the user can give ("I have neither",
                                              "Token … 我这边没有") counts too
``partial-count-claimed-all`` contradiction   a Todo says N/M done (N < M) while the answer
                                              says all M
``open-item-claimed-passing`` contradiction   an unfinished or "still failing / not verified"
                                              Todo while the answer claims the same topic
                                              passed / verified / all fixed, or claims
                                              success in a sentence naming the open item's
                                              own identifier (its branch, job, file)
``pending-item-claimed-done`` contradiction   a pending/in-progress Todo whose distinctive
                                              tokens the answer reports as done
``done-item-denied``          contradiction   a completed Todo while an answer clause (up to a
                                              contrast such as “…, only X”) denies that kind
                                              of work on the same topic or object ("I didn't
                                              add tests", "couldn't run", "没能验证", "保留了");
                                              the Todo's kind of work comes from its words, not
                                              its identifiers, and "X can't …" about a thing
                                              (not "I can't") is no denial
``number-mismatch``           contradiction   a Todo and the answer give different values with
                                              the same unit (passed counts, %, seconds)
``version-mismatch``          contradiction   a completed Todo sets a thing to version V while
                                              an answer clause naming it gives another
                                              version of the same shape (“stays at W”)
``setting-mismatch``          contradiction   a completed Todo sets a named setting to a number
                                              or boolean (“minReplicas 为 3”) while the answer
                                              shows it only at another value (an old value,
                                              “from 2” / “2 →”, does not count)
``none-claimed-vs-count``     contradiction   a completed Todo says none of a kind ("nothing
                                              destroyed", "no failures", "没有报错") while the
                                              answer reports a positive count ("1 to destroy")
``done-all-some-left``        contradiction   a completed "convert/migrate/replace all X" Todo
                                              while the answer says some X "are still" in the
                                              old state (“仍然是”)
``list-count-mismatch``       contradiction   “changed N files:” / “Files changed (N):”
                                              followed by a list of another length
``green-claim-vs-failures``   contradiction   “the whole suite is green” / “all N tests in X
                                              pass” next to a run that reports failures (not
                                              excused as unrelated)
``unchanged-claim-vs-change`` contradiction   “the public API is unchanged” next to a renamed
                                              public member (“`a.b` is now `a.c`”)
``all-claimed-some-deferred`` contradiction   “all N X were migrated” and “I'll port them
                                              later” / “还没替换” in another sentence
``answer-self-conflict``      contradiction   the answer reports an item both as changed and
                                              as left in place
``all-done-with-open-items``  contradiction   the answer says all done while a Todo is open
``open-item``                 omission        a pending/in-progress Todo the user did not
                                              descope
``failures-remain``           omission        the request asked for passing/green/clean and the
                                              answer reports failures remaining or a partial
                                              pass count (“47 of 48 passed”, “48 个中 47 个
                                              通过”) (unless the
                                              request named one suite and the failure is
                                              explained as unrelated / pre-existing)
``constraint-violated``       omission        the request forbids a kind of change (public API,
                                              dependencies, schema, …) the answer reports
``answer-admits-unfinished``  omission        the answer says a part was not got to / not
                                              finished
``requested-deliverable-missing`` omission    the request asks to add tests / update docs,
                                              README, changelog / bump the version /
                                              regenerate the lockfile / provide a rollback
                                              script / mask (脱敏) a value, and neither the
                                              Todos nor the answer mention it (absence rules
                                              stay silent on a thin report)
``listed-item-missing``       omission        the request lists three or more things to act
                                              on (also after “On X:”); the Todos and answer
                                              name all but one (a part of an identifier such
                                              as ``deletion_protection`` counts as naming)
``required-name-missing``     omission        a request clause requires a named field/flag
                                              (``request_id``) that the Todos and the answer
                                              never name
``thin-report``               unknown         the answer is empty or a bare "done" / "see the
                                              PR" without actions, paths, commands or results,
                                              and the Todos give no evidence either
``no-rule-fired``             complete        nothing above fired
============================  ==============  ===============================================

Stdlib only (``re``); pure CPU, no I/O; same numbering in, same text out.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jev.domain import JudgeAnswer, JudgeInfo, Numbering, Position

if TYPE_CHECKING:
    from jev.domain import JudgeInput, JudgeSettings

__all__ = ["RULE_IDS", "RuleHit", "RulesJudge", "explain"]

_I = re.IGNORECASE


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _I)


@functools.lru_cache(maxsize=8192)
def _lower(text: str) -> str:
    return text.lower()


def _gate_rx(anchors: tuple[str, ...], pattern: str) -> _Gate:
    return _Gate(_rx(pattern), anchors)


class _Gate:
    """A regex behind a cheap literal pre-check: ``search`` runs the regex only when the
    lower-cased text holds one of ``anchors`` (every match must contain one of them)."""

    __slots__ = ("anchors", "rx")

    def __init__(self, rx: re.Pattern[str], anchors: tuple[str, ...]) -> None:
        self.rx = rx
        self.anchors = anchors

    def search(self, text: str) -> re.Match[str] | None:
        low = _lower(text)
        if not any(anchor in low for anchor in self.anchors):
            return None
        return self.rx.search(text)


# --------------------------------------------------------------------------- vocabulary

#: Topic classes: a Todo item and an answer sentence "talk about the same thing" when
#: they share a class (or a distinctive token). General software vocabulary only.
_TOPICS: dict[str, re.Pattern[str]] = {
    "tests": _rx(
        r"\btests?\b|\bunit[- ]?tests?\b|\bspecs?\b|\btest_|_test\b|\.test\."
        r"|\bpytest\b|\bjest\b|\bvitest\b|\bgo test\b|单测|单元测试|测试|用例"
    ),
    "build": _rx(r"\bbuild(s|ing)?\b|\bcompil\w*|构建|编译"),
    "lint": _rx(r"\blint\w*|\beslint\b|\bwarnings?\b|警告|告警"),
    "types": _rx(r"\btypecheck\w*|\btsc\b|\bmypy\b|\bpyright\b|类型检查"),
    "deps": _rx(
        r"\bdependenc(y|ies)\b|\bdeps\b|requirements[\w.-]*\.txt|package\.json"
        r"|pyproject\.toml|\bgo\.mod\b|Cargo\.toml|Gemfile|依赖"
    ),
    "schema": _rx(r"\bschema\b|\bmigrations?\b|\bindex(es)?\b|\bcolumns?\b|迁移|索引|表结构"),
    "frontend": _rx(
        r"\bfront-?end\b|\breact\b|\bvue\b|\bangular\b|\bsvelte\b|\bcomponents?\b"
        r"|\.tsx\b|\.jsx\b|\.vue\b|\bui\b|前端|页面|组件"
    ),
    "docs": _rx(r"\bdocs?\b|\bdocumentation\b|\breadme\b|\bdocument(ed|ing)?\b|文档"),
    "changelog": _rx(r"\bchange-?log\b|\brelease notes\b|变更日志|更新日志"),
    "version": _rx(r"\bversion\b|版本"),
    "coverage": _rx(r"\bcoverage\b|覆盖率"),
    "public-api": _rx(
        r"\bpublic (api|interface|functions?|methods?|signatures?|types?)\b|\bexported\b"
        r"|\bbreaking change\b|公开接口|对外接口|公共接口|导出的"
    ),
}

#: Literal, lower-case anchors per topic: a topic pattern can only match a text that
#: contains one of them (a cheap ``in`` test before the slower regex search).
_TOPIC_ANCHORS: dict[str, tuple[str, ...]] = {
    "tests": ("test", "spec", "jest", "单测", "测试", "用例"),
    "build": ("build", "compil", "构建", "编译"),
    "lint": ("lint", "warning", "警告", "告警"),
    "types": ("typecheck", "tsc", "mypy", "pyright", "类型检查"),
    "deps": (
        "depend",
        "deps",
        "requirements",
        "package.json",
        "pyproject",
        "go.mod",
        "cargo",
        "gemfile",
        "依赖",
    ),
    "schema": ("schema", "migration", "index", "column", "迁移", "索引", "表结构"),
    "frontend": (
        "front",
        "react",
        "vue",
        "angular",
        "svelte",
        "component",
        ".tsx",
        ".jsx",
        "ui",
        "前端",
        "页面",
        "组件",
    ),
    "docs": ("doc", "readme", "文档"),
    "changelog": ("change", "release notes", "变更日志", "更新日志"),
    "version": ("version", "版本"),
    "coverage": ("coverage", "覆盖率"),
    "public-api": ("public", "export", "breaking", "公开接口", "对外接口", "公共接口", "导出的"),
}
assert set(_TOPIC_ANCHORS) == set(_TOPICS)

#: Sub-kinds that make two mentions of the same topic different things
#: ("unit tests pass" says nothing about e2e tests).
_QUALIFIERS = _rx(r"\b(e2e|end[- ]to[- ]end|integration|unit|smoke|load)\b|端到端|集成|单元|冒烟")

_NEGATION = _rx(
    r"\b(not|no|never|none|without|nothing|neither|nor|cannot)\b|n['’]t\b"
    r"|没|未|不|无|别|尚未"
)

#: The user is cited as the reason (a descoping the answer honours).
_USER_CITED = _rx(
    r"\b(you said|you asked|as (you )?requested|per your|as you (asked|said|wanted)"
    r"|at your request|your (follow-up|instruction|request|note)|as instructed)\b"
    r"|按你说的|按你的|你说|根据你的|按照你的要求|如你所说|按要求"
)

#: A later request message that narrows the scope.
_DESCOPE = _rx(
    r"\b(skip|don['’]t|do not|no need|not needed|leave|ignore|drop|just|only|for now"
    r"|themselves|later|hold off|not now)\b|不用|先不|不需要|跳过|只|暂时不|别|先别|不要"
)

#: Success / completion claims (positive; checked together with the absence of negation).
_SUCCESS_CLAIM = _rx(
    r"\ball\b[^.;:\n]{0,30}\b(pass(es|ed)?|green|clean|succeed\w*|fixed|done|complete\w*)"
    r"|\b(tests?|checks?|suite|build|lint|ci)\b[^.;\n]{0,20}"
    r"\b(now )?(pass(es|ed)?|succeed\w*|green)\b"
    r"|\bverified\b|\bready to (merge|ship|release)\b|\ball (done|set|good)\b"
    r"|\bzero (errors|warnings)\b|\bno (errors|warnings|failures)\b"
    r"|(所有|全部|均已?|都已?)[^，。；\n]{0,10}(通过|完成|修好|搞定)|零错误|零警告|可以合并|可以上线|验证通过|已(经)?验证|验证过"
)

#: The strongest, universal success claims (preferred as the focus).
_STRONG_CLAIM = _rx(
    r"\ball\b[^.;:\n]{0,30}\bpass|\bverified\b|\bzero (errors|warnings)\b|\bno (errors|warnings)\b"
    r"|零错误|零警告|(所有|全部)[^，。；\n]{0,10}通过|已(经)?验证"
)

#: Done-verbs: the answer reports an item as done.
_DONE_CLAIM = _rx(
    r"\b(updated|added|done|completed|fixed|migrated|converted|implemented|created"
    r"|removed|deleted|set|wrote|written|changed|registered|enabled|renamed|moved)\b"
    r"|已|完成|加上了|改好|更新了|改了|加了|搞定"
)

#: "Still failing / not verified / blocked" inside a Todo item's content.
#: Phrases that always describe an item's state ("not verified", "still failing", 未验证).
_OPEN_MARKER = _rx(
    r"\bnot (yet )?(verified|run|tested|done|passing|implemented|fixed|added|checked|complete\w*)"
    r"|\bunverified\b|\bstill (fail\w*|broken|red|erroring)"
    r"|\bleft (as is|as-is|for later)\b"
    r"|未(验证|运行|执行|完成|通过|修复|测试)|(还有|仍有|剩余|剩下)[^，。；]{0,12}(失败|错误|warning|警告|问题)"
    r"|(仍然|仍|还是)(失败|报错)|待(修|处理|验证|完成)|暂不处理|阻塞"
)
#: Words that describe a state only when used as one ("E2E tests skipped", "(blocked)",
#: "TODO: …"), not as an adjective of the work ("render skipped tests", "blocked users",
#: "todo list", "deferred image loading").
_OPEN_WORD = re.compile(r"(?i:\bblocked\b|(?<!\d )\bskipped\b|\bremaining\b|\bdeferred\b)|\bTODO\b")
_STATE_AFTER = re.compile(r"\s*(?:$|[)\]}.,;:!?—–-]|\((?:for|until|see|pending)\b)")
_STATE_BEFORE = re.compile(
    r"(?:[(\[{:—–-]|\b(?:is|was|are|were|got|marked|left|still|now))\s*$", re.I
)


def _open_marked(text: str) -> bool:
    """Whether a Todo's own text says it is unfinished, unverified or skipped."""
    if _OPEN_MARKER.search(text):
        return True
    for m in _OPEN_WORD.finditer(text):
        if _STATE_AFTER.match(text, m.end()) or _STATE_BEFORE.search(text, 0, m.start()):
            return True
    return False


_FRACTION = re.compile(r"(?<![\d.])(\d{1,6})\s*/\s*(\d{1,6})(?![\d.])")

#: Failures the answer reports as still there.
_FAILURES_REMAIN = _rx(
    r"\bstill (fails|failing|fail|reports?|has|have|shows?|red|broken|errors?)\b"
    r"|\b[1-9]\d* (failed|failing|failures?|errors?)\b"
    r"|\b(remaining|outstanding) (failures?|errors?)\b"
    r"|(还有|仍有|剩下|剩余|仍然有)[^，。；\n]{0,12}(错误|失败|报错|报|race|未通过)"
    r"|(仍然|仍|还是|依然)(失败|报错|不通过|没通过)|没(有)?通过|未通过"
)

#: The request asks for a passing/green/clean end state (not just "run and report").
_WANTS_PASS = _rx(
    r"\b(make|get|keep|so)\b[^.;\n]{0,60}\b(pass(es|ing)?|green|clean)\b"
    r"|\b(must|should|need to|needs to)\b[^.;\n]{0,30}\b(pass|be green|be clean)\b"
    r"|\ball[^.;\n]{0,20}\bpass\b|\bfix\b[^.;\n]{0,40}\b(fail\w*|broken|red|errors?)\b"
    r"|全部通过|都(要|能)?通过|要能过|能过|跑通|不报错|修复?[^，。；\n]{0,20}(失败|报错|错误)"
)

#: The request only wants a report, not a fix.
_REPORT_ONLY = _rx(
    r"\b(don['’]t|do not|no need to) (fix|change|modify)\b|\bjust (tell|list|report)\b"
    r"|\bonly (report|list)\b|先不用修|不用修|先别修|不要修|列出来就行|只要列出"
)

#: The answer says part of the work is not finished.
_ADMITS_UNFINISHED = _Gate(
    _rx(
        r"\b(didn['’]t|did not|haven['’]t|have not) (get|gotten|got) to\b|\bran out of time\b"
        r"|\b(haven['’]t|have not|didn['’]t|did not) (finish|finished|complete|implement)\w*\b"
        r"|\bnot (yet )?(finished|implemented|completed)\b|\bstill (need|needs) to be\b"
        r"|\bremaining work\b|\bis (still )?a TODO\b|\bleft (unfinished|undone|as a TODO)\b"
        r"|还没(来得及|做|完成|实现|改完|处理)|未完成|没来得及|尚未(完成|实现|处理)|没做完"
    ),
    (
        "get to",
        "got to",
        "gotten to",
        "ran out",
        "finish",
        "complet",
        "implement",
        "to be",
        "remaining work",
        "todo",
        "left ",
        "还没",
        "未完成",
        "没来得及",
        "尚未",
        "没做完",
    ),
)

# --- needs-user vocabulary

_QUESTION_MARK = re.compile(r"[?？]")
#: A hedged suggestion phrased as a question ("- Maybe add a confirmation dialog?"):
#: a design note for the reader, not a request for the user's decision.
_HEDGED_SUGGESTION = _rx(
    r"^\s*(?:[-*+•]\s+|\d+[.)]\s+)?(?:maybe|perhaps|possibly|optionally|也许|或许|可以考虑|考虑)"
)
_OFFER = _rx(
    r"\bif you(?: want| like|['’]d like| would like| prefer)\b|\blet me know if\b|\bhappy to\b"
    r"|\bi can also\b|\b(want|like) me to also\b|\boptional(ly)?\b|\bfollow-?up\b"
    r"|\bseparate (pr|mr|change|commit|ticket)\b|\bas well\b|\bwhile i'm at it\b"
    r"|需要的话|如果需要|如果你需要|有需要|可选|顺手|顺便|另外可以|不改也不影响"
)
#: A request that asks only for analysis or a proposal, not for the change itself.
_ANALYSIS_REQUEST = _rx(
    r"\b(investigate|propose|proposal|analy[sz]e|suggest|diagnose|research|look into"
    r"|come up with|outline|assess|evaluate)\b"
    r"|调查|分析|提出方案|给出方案|出个方案|建议|评估|排查原因"
)
_CHANGE_REQUEST = _rx(
    r"\b(implement|fix|add|change|update|write|build|create|remove|delete|migrate|refactor"
    r"|rename|deploy|apply|make it)\b|修复|实现|添加|修改|更新|删除|迁移|重构|部署|改成|加上"
)
#: Asking whether to go on to carry out what was only proposed.
_GO_ON_TO_CHANGE = _rx(
    r"\b(implement|apply|proceed|go ahead|make (these|the|those) changes"
    r"|start (on|with) (it|this|that))\b|实施|实现|动手|开始改"
)
_CHOICE = _rx(r"\bwhich\b|\bprefer\b|\beither\b|\bor\b[^?]{0,80}\?|还是|哪个|哪种|哪一|选哪|二选一")
_PERMISSION = _rx(
    r"\b(should i|shall i|do you want me to|want me to|would you like me to|ok(ay)? to"
    r"|is it ok|can i|may i|go ahead|proceed)\b|要不要|是否|可以吗|行吗|能否|好吗|可不可以"
    r"|(?:需要|要)我[^？?。]{0,40}吗"
)
#: An explicit ask for a decision, approval or input (no question mark needed).
_EXPLICIT_ASK_1 = _Gate(
    _rx(
        r"\b(please|pls) (confirm|approve|decide|choose|provide|send|share)\b"
        r"|\bneeds? your (approval|confirmation|decision|sign-?off|input|go-ahead|ok)\b"
        r"|\b(waiting|wait) (for|on) your\b"
        r"|\bneed you to (provide|confirm|decide|choose|approve|run|add|set|create|grant|give"
        r"|share|send)\b"
        r"|\brequires? your (approval|confirmation|decision)\b"
        r"|\bi (?:still )?need (?:either |you to |your |from you )?(?:\w+ ){0,3}?"
        r"(?:credentials?|access|tokens?|keys?|permissions?|approval|decision|confirmation|input"
        r"|go-ahead|sign-?off)\b"
        r"|\byou(?:['’]ll| will| would| can| could)? (?:need to |have to )?(?:run|apply|execute"
        r"|trigger|merge|approve|do) (?:this|these|that|those|it|them)\b[^.\n]{0,60}\byourself\b"
        r"|\b(?:up to you|your call|you decide)\b"
        r"|请(你)?(确认|选择|提供|决定|批准|授权|选)"
        r"|需要你(?:或[^，。；\s]{1,8})?(来)?(确认|提供|决定|选择|批准|授权|执行|选|定|拍板|手动)"
        r"|等你(确认|决定|回复|选)|需要(用户|你的)(确认|授权|批准|决定)|由你(来)?(决定|选|定)"
        r"|你(来)?(决定|定一下|选一下|拍板)"
    ),
    (
        "please",
        "pls",
        "need",
        "wait",
        "require",
        "yourself",
        "up to you",
        "your call",
        "you decide",
        "请",
        "需要",
        "等你",
        "由你",
        "你",
    ),
)
#: The user is the one to decide or act: "until you confirm", "a decision I can't make",
#: "if you run `…` yourself" (a separate gate: its anchors are rarer than the above).
_EXPLICIT_ASK_2 = _Gate(
    _rx(
        r"\buntil you(?: or [\w -]{1,30}?)? (?:confirm|decide|approve|choose|sign off|say|give)\b"
        r"|\b(?:decision|call|choice) (?:that )?(?:i|we) (?:can['’]t|cannot|can not|shouldn['’]t)"
        r" make\b"
        r"|\bif you run\b[^.\n]{1,80}\byourself\b"
    ),
    ("until you", "n't make", "n’t make", "cannot make", "can not make", "yourself"),
)


class _AnyGate:
    """Several gates searched in order: the first match wins (``search`` as in re)."""

    __slots__ = ("gates",)

    def __init__(self, *gates: _Gate) -> None:
        self.gates = gates

    def search(self, text: str) -> re.Match[str] | None:
        for gate in self.gates:
            m = gate.search(text)
            if m is not None:
                return m
        return None


_EXPLICIT_ASK = _AnyGate(_EXPLICIT_ASK_1, _EXPLICIT_ASK_2)
#: The agent lacks a credential or access that only the user can give ("I have
#: neither", "Token … 我这边没有"): an ask only in a turn that is visibly blocked.
_LACKS_ACCESS = _AnyGate(
    _Gate(
        _rx(
            r"\band i have neither\b"
            r"|\bi (?:don['’]t|do not) have (?:the |a |an |any )?(?:[\w-]+ ){0,3}?(?:credentials?"
            r"|access|tokens?|keys?|permissions?|password)\b"
        ),
        ("neither", "n't have", "n’t have", "not have"),
    ),
    _Gate(
        _rx(
            r"(?:token|key|凭证|密钥|权限|账号|证书|授权)[^。\n]{0,40}我(?:这边|这里|目前)?没有"
            r"|我(?:这边|这里|目前)?没有[^。\n]{0,20}(?:token|key|凭证|密钥|权限|账号)"
        ),
        ("没有",),
    ),
)
_WH_QUESTION = _rx(r"\b(what|where|who|when|how)\b|什么|哪里|多少|谁")
#: Completion is blocked until the user answers.
_BLOCKED = _rx(
    r"\bonce (i have|you|i get)\b|\bbefore i (can|proceed|continue)\b"
    r"|\b(i )?(haven['’]t|have not) (changed|done|touched|published|pushed|run|deployed)\b"
    r"|\bnothing (has been|was) (published|changed|pushed|deployed|done)\b|\bnot (yet )?published\b"
    r"|\bi (couldn['’]t|could not|can['’]t|cannot) (find|determine|decide)\b"
    r"|\b(?:didn['’]t|did not|couldn['’]t|could not) (?:happen|go through)\b"
    r"|我还没|还没有?(改|动|做|执行|发布|推|操作)|没有做任何|等你|拿到.{0,10}(之后|后)|没有权限"
)
#: Risky or irreversible actions whose permission the request may or may not hold.
_RISKY = _rx(
    r"\bprod(uction)?\b|\bforce[- ]?push\w*|\bdelet\w*|\bdrop\b|\bpublish\w*|\bdeploy\w*"
    r"|\brelease\b|\bmigrat\w*|\bpush\w*|\bspend\w*|\bbilling\b|\bcredentials?\b|\btokens?\b"
    r"|生产|线上|删除|强推|force push|发布|部署|上线|执行|推送|迁移|付费|费用|凭证|密钥"
)
#: A Todo item that waits for the user.
_TODO_WAITS_USER = _rx(
    r"\b(decide|confirm|ask|check) with (the )?user\b|\bfrom (the )?user\b"
    r"|\buser (decision|input|approval)\b"
    r"|\bapproval\b|\bsign-?off\b|\bdecide\b|\bchoose\b|需要用户|用户确认|确认|决定|审批|批准"
)
_ASK_FIRST = _rx(
    r"\b(check|confirm) with me\b|\bask me\b|\b(run it )?by me first\b|\bwithout asking\b"
    r"|\b(need|wait for|get|without) my (ok|approval|go-ahead|sign-?off)\b|\bwait for me\b"
    r"|先问我|先跟我确认|先和我确认|先找我|经过我同意|我确认之后|问过我"
)
_REQUEST_NEGATED = _rx(
    r"\b(don['’]t|do not|never|no|not|avoid|without)\b|不要|别|先不|不用|不能|禁止"
)

# --- thin-report vocabulary

_EVIDENCE = re.compile(
    r"`[^`\n]+`|\b[\w-]+/[\w./-]+|\b[\w-]+\.(py|ts|tsx|js|jsx|go|rs|java|kt|rb|php|cs|c|h|cpp"
    r"|md|ya?ml|json|toml|sql|sh|txt|cfg|ini|lock|html|css|vue)\b"
    r"|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b|\w+\(\)"
    r"|\b\d+(\.\d+)?\s*(passed|failed|tests?|ms|s|%|files?|rows?|errors?)\b"
    r"|\b(pytest|npm|pnpm|yarn|go (test|build|vet)|cargo|make|gradle|mvn|tsc|docker|kubectl"
    r"|git|pip|uv)\b|\d+\s*个(用例|测试|文件|错误)|\d+\s*(行|处)"
)
_DEFERRAL = _rx(
    r"\b(?:it['’]?s|it is|everything(?:['’]s| is)?|all|changes are|the work is|code is)"
    r"(?: all)? (?:on|in|at) (?:the )?(?:`[^`\n]+` |[\w./-]+ )?(?:branch|pr|mr|commit|fork)\b"
    r"|\b(?:pushed|committed) (?:it |everything |all )?to (?:the )?(?:`[^`\n]+`|[\w./-]+)"
    r"(?: branch)?(?:\s*[.!](?=\s|$)|\s*$)"
    r"|(?:都|全部|代码|改动)(?:已经?)?(?:在|推到|提交到)了? ?(?:`[^`\n]+`|[\w./-]+)? ?分支"
    r"|\bsee (the )?(pr|mr|diff|commit|branch)\b|\bshould (work|be (good|fine|ok))\b"
    r"|\bas discussed\b|\bgood to go\b|细节见|详见|见 ?(mr|pr)|应该(没问题|可以了|好了)"
)

# --- number comparison

_UNIT_VALUE = _rx(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(%|passed|failed|skipped|errors?|warnings?"
    r"|ms\b|s\b|sec(?:onds?)?\b|min(?:utes?)?\b|秒|分钟|个错误|个警告)"
)
_BASELINE = _rx(r"\b(baseline|before|previous(ly)?|was|old|initial)\b|原来|之前|基线|原先|旧")

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-/]*[A-Za-z0-9]|[\u4e00-\u9fff]+")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "from",
        "by",
        "at",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "into",
        "onto",
        "via",
        "per",
        "all",
        "any",
        "some",
        "each",
        "new",
        "old",
        "add",
        "added",
        "update",
        "updated",
        "run",
        "fix",
        "fixed",
        "make",
        "made",
        "use",
        "used",
        "using",
        "test",
        "tests",
        "check",
        "done",
        "todo",
        "item",
        "items",
        "after",
        "before",
        "then",
        "than",
        "also",
        "just",
        "only",
        "now",
        "still",
        "not",
        "yet",
        "out",
        "up",
        "down",
        "over",
        "under",
        "more",
        "less",
        "file",
        "files",
        "code",
        "change",
        "changes",
    ],
)

# --------------------------------------------------------------------------- material view


@dataclass(frozen=True, slots=True)
class RuleHit:
    """What the rules judge decided and why (SPEC §5; heuristic, see module docstring).

    Attributes:
        rule: the id of the rule that fired (one of :data:`RULE_IDS`).
        assessment: ``complete`` | ``omission`` | ``contradiction`` | ``needs-user`` |
            ``unknown``.
        focus: the position id that is the rule's evidence (``R#``, ``T#``, ``A#``,
            ``none`` for ``complete``, ``all`` for a thin material).
        explanation: one short English sentence for people (CLI, README, records).
        confidence: a fixed per-rule diagnostic in 0..1, never a chance of correctness.
    """

    rule: str
    assessment: str
    focus: str
    explanation: str
    confidence: float

    def to_reply(self) -> str:
        """The reply text a model would send, plus ``rule`` and ``heuristic`` keys.

        Returns:
            Compact JSON: ``{"assessment", "focus", "confidence", "rule", "why",
            "heuristic": true}`` (SPEC §5 shape; extra keys are allowed). ``why`` is
            the rule's one-line English explanation, naming both sides of a conflict.
        """
        return json.dumps(
            {
                "assessment": self.assessment,
                "focus": self.focus,
                "confidence": self.confidence,
                "rule": self.rule,
                "why": self.explanation,
                "heuristic": True,
            },
            ensure_ascii=False,
        )


class _View:
    """Pre-computed facts about one numbering that several rules share."""

    def __init__(self, numbering: Numbering) -> None:
        self.numbering = numbering
        self.requests = numbering.of_kind("request")
        self.todos = numbering.of_kind("todo")
        self.answers = numbering.of_kind("answer")
        self.answer_text = numbering.material.final_answer
        self.answer_plain = _strip_code(self.answer_text)
        self.request_text = "\n".join(numbering.material.request)
        self.todo_text = "\n".join(t.text for t in self.todos)
        self.spans = _spans(self.answer_text, self.answers)
        self.paragraph = _paragraph_numbers(self.answer_text, self.answers)
        self.last_paragraph = max(self.paragraph.values(), default=0)
        self.open_todos = tuple(t for t in self.todos if t.status in ("pending", "in_progress"))
        self.later_requests = tuple(p for p in self.requests if (p.message or 1) > 1)
        self._claims: tuple[Position, ...] | None = None
        self._negated: tuple[Position, ...] | None = None
        self._denials: tuple[Position, ...] | None = None
        self._thin: bool | None = None

    def negated_answers(self) -> tuple[Position, ...]:
        """Answer positions whose text outside code spans holds a negation (computed once)."""
        if self._negated is None:
            self._negated = tuple(a for a in self.answers if _NEGATION.search(_strip_code(a.text)))
        return self._negated

    def thin(self) -> bool:
        """True when the ``thin-report`` rule fires on this material (computed once)."""
        if self._thin is None:
            self._thin = _rule_thin_report(self) is not None
        return self._thin

    def negated_or_kept(self) -> tuple[Position, ...]:
        """Answer positions with a negation or a "kept / left in place" (computed once)."""
        if self._denials is None:
            hits = {m.start() for m in _NEGATION.finditer(self.answer_text)}
            if _KEPT.search(self.answer_text):
                hits.update(m.start() for m in _KEPT.rx.finditer(self.answer_text))
            candidates = self._positions_at(sorted(hits))
            self._denials = tuple(
                a
                for a in candidates
                if _NEGATION.search(p := _strip_code(a.text)) or _KEPT.search(p)
            )
        return self._denials

    def _positions_at(self, offsets: list[int]) -> list[Position]:
        """Answer positions whose span holds one of ``offsets`` (sorted), in order."""
        if not offsets:
            return []
        starts = [start for start, _ in self.spans]
        found: dict[str, Position] = {}
        for off in offsets:
            i = bisect.bisect_right(starts, off) - 1
            if i >= 0 and off < self.spans[i][1] + 1:
                pos = self.answers[i]
                found[pos.id] = pos
        return [a for a in self.answers if a.id in found]

    def success_claims(self) -> tuple[Position, ...]:
        """Answer positions with a non-negated success claim (computed once)."""
        if self._claims is None:
            self._claims = tuple(_claim_positions(self, _SUCCESS_CLAIM))
        return self._claims

    def answer_mentions(self, todo: Position) -> list[Position]:
        """Answer positions that talk about this Todo item's distinctive tokens."""
        tokens = _distinctive_tokens(todo, self.todos)
        if not tokens:
            return []
        return [a for a in self.answers if any(_contains_token(a.text, tok) for tok in tokens)]

    def descoped(self, todo: Position) -> bool:
        """True when a later user message narrows the scope away from this Todo item."""
        tokens = _distinctive_tokens(todo, self.todos) | _content_words(todo.text)
        for req in self.later_requests:
            if not _DESCOPE.search(req.text):
                continue
            if any(_contains_token(req.text, tok) for tok in tokens):
                return True
            if _topics(req.text) & _topics(todo.text):
                return True
        return False


def _spans(text: str, positions: Sequence[Position]) -> list[tuple[int, int]]:
    """Character span (start, end) of each answer position inside the answer text."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for pos in positions:
        found = text.find(pos.text, cursor)
        if found < 0:
            found = cursor
        spans.append((found, found + len(pos.text)))
        cursor = found + len(pos.text)
    return spans


def _paragraph_numbers(text: str, positions: Sequence[Position]) -> dict[str, int]:
    """Map each answer position id to the 0-based paragraph (blank-line block) it is in."""
    breaks = [m.start() for m in re.finditer(r"\n[ \t]*\n", text)]
    result: dict[str, int] = {}
    cursor = 0
    for pos in positions:
        found = text.find(pos.text, cursor)
        if found < 0:
            found = cursor
        result[pos.id] = bisect.bisect_left(breaks, found)
        cursor = found + len(pos.text)
    return result


@functools.lru_cache(maxsize=4096)
def _topics(text: str) -> frozenset[str]:
    """The :data:`_TOPICS` classes ``text`` talks about."""
    low = text.lower()
    return frozenset(
        name
        for name, rx in _TOPICS.items()
        if any(anchor in low for anchor in _TOPIC_ANCHORS[name]) and rx.search(text)
    )


@functools.lru_cache(maxsize=4096)
def _qualifiers(text: str) -> set[str]:
    return {m.group(0).lower().replace(" ", "-") for m in _QUALIFIERS.finditer(text)}


@functools.lru_cache(maxsize=4096)
def _content_words(text: str) -> set[str]:
    words: set[str] = set()
    for m in _WORD.finditer(text):
        w = m.group(0).lower()
        if w[0].isascii():
            if len(w) >= 4 and w not in _STOPWORDS:
                words.add(w)
        elif len(w) >= 2:
            words.update(w[i : i + 2] for i in range(len(w) - 1))
    return words


@functools.lru_cache(maxsize=4096)
def _code_tokens(text: str) -> set[str]:
    """Identifier-like tokens: code spans, paths/file names, snake/camel/Pascal names."""
    tokens = {m.group(1).strip().lower() for m in _CODE_SPAN.finditer(text)}
    for m in _WORD.finditer(text):
        w = m.group(0)
        if not w[0].isascii():
            continue
        if any(c in w for c in "._/") or re.search(r"[a-z][A-Z]|\d", w):
            tokens.add(w.lower())
    stems = set()
    for tok in tokens:
        stem = re.sub(r"\.(py|ts|tsx|js|jsx|go|rs|java|rb|vue|md|ya?ml|json|toml|sql)$", "", tok)
        if stem != tok and len(stem) >= 4:
            stems.add(stem)
    return {t for t in tokens | stems if len(t) >= 3}


def _distinctive_tokens(todo: Position, todos: Sequence[Position]) -> set[str]:
    """Tokens of this Todo item that no other Todo item contains (lower-cased)."""
    others = " ".join(t.text for t in todos if t.id != todo.id).lower()
    tokens = _code_tokens(todo.text) | _content_words(todo.text)
    return {tok for tok in tokens if tok not in others}


def _contains_token(text: str, token: str) -> bool:
    low = text.lower()
    if not token[0].isascii():
        return token in low
    return re.search(r"(?<![\w])" + re.escape(token) + r"(?![\w])", low) is not None


@functools.lru_cache(maxsize=4096)
def _sentences(text: str) -> list[str]:
    """Split a position's text into rough sentences (for multi-sentence positions)."""
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|(?<=[。！？；])|\n+", text)
    return [p.strip() for p in parts if p and p.strip()]


# --------------------------------------------------------------------------- rules

_Rule = Callable[[_View], "RuleHit | None"]


def _hit(rule: str, assessment: str, focus: Position, why: str, confidence: float) -> RuleHit:
    return RuleHit(rule, assessment, focus.id, why, confidence)


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _closing_answers(view: _View) -> list[Position]:
    """Answer positions in the last paragraph plus the last two positions overall."""
    tail = {a.id for a in view.answers[-2:]}
    return [
        a for a in view.answers if a.id in tail or view.paragraph.get(a.id) == view.last_paragraph
    ]


def _ask_kind(view: _View, pos: Position) -> str | None:
    """Classify an answer position as an ask of the user: choice/permission/explicit/info."""
    text = pos.text
    if _EXPLICIT_ASK.search(text):
        return "explicit"
    if not _QUESTION_MARK.search(text) or _HEDGED_SUGGESTION.search(text):
        return None
    question = text
    if _CHOICE.search(question):
        return "choice"
    if _PERMISSION.search(question):
        return "permission"
    if _WH_QUESTION.search(question):
        return "info"
    return None


def _blocked(view: _View) -> bool:
    """Is the turn visibly waiting on the user (open Todo, "haven't changed anything")?"""
    if any(_TODO_WAITS_USER.search(t.text) for t in view.open_todos):
        return True
    if view.open_todos:
        return True
    return bool(_BLOCKED.search(view.answer_text)) or bool(_EXPLICIT_ASK.search(view.answer_text))


def _authorizing_request(view: _View, question: str) -> Position | None:
    """The request segment that already asked for the risky action the question asks about."""
    if _ASK_FIRST.search(view.request_text):
        return None
    terms = {m.group(0).lower() for m in _RISKY.finditer(question)}
    commands = {m.group(1).strip().lower() for m in _COMMAND_SPAN.finditer(question)}
    if not (terms or commands):
        return None
    for req in view.requests:
        if _REQUEST_NEGATED.search(req.text) and not re.search(r"已经|already", req.text, _I):
            continue
        low = req.text.lower()
        if any(_term_in(low, term) for term in terms) or any(f"`{cmd}" in low for cmd in commands):
            return req
    return None


#: A code span that reads as a command (“`helm upgrade`”, “`terraform apply`”): a tool
#: name and a sub-command, the kind of action a request can name and thereby authorize.
_COMMAND_SPAN = re.compile(r"`([a-z][\w.-]*(?: [a-z][\w:.-]*){1,2})`")


def _term_in(text: str, term: str) -> bool:
    if term[0].isascii():
        stem = term[:5] if len(term) > 5 else term
        return re.search(r"(?<![\w])" + re.escape(stem), text) is not None
    return term in text


def _offers_next_step(view: _View, pos: Position) -> bool:
    """An analysis-only request answered, then "shall I implement it?": an optional
    offer of further work, not a decision the completion depends on."""
    return (
        bool(_GO_ON_TO_CHANGE.search(pos.text))
        and bool(_ANALYSIS_REQUEST.search(view.request_text))
        and not _CHANGE_REQUEST.search(view.request_text)
    )


def _rule_asks_user(view: _View) -> RuleHit | None:
    """``asks-user`` (needs-user) and ``already-authorized`` (omission)."""
    for pos in _closing_answers(view):
        kind = _ask_kind(view, pos)
        if kind is None:
            continue
        risky = bool(_RISKY.search(pos.text))
        if kind == "permission":
            req = _authorizing_request(view, pos.text)
            if req is not None:
                return _hit(
                    "already-authorized",
                    "omission",
                    req,
                    f"the answer asks permission for something the request already asked for: "
                    f"“{_quote(req.text)}”",
                    0.7,
                )
        offer = bool(_OFFER.search(pos.text)) or _offers_next_step(view, pos)
        paragraph_offer = any(
            _OFFER.search(a.text) and view.paragraph.get(a.id) == view.paragraph.get(pos.id)
            for a in view.answers
            if a.id != pos.id and not _QUESTION_MARK.search(a.text)
        )
        if kind == "explicit" and not offer:
            return _hit(
                "asks-user",
                "needs-user",
                pos,
                f"the answer asks the user for a decision or input: “{_quote(pos.text)}”",
                0.8,
            )
        if offer or paragraph_offer:
            continue
        if kind == "choice" or (kind in ("permission", "info") and (_blocked(view) or risky)):
            return _hit(
                "asks-user",
                "needs-user",
                pos,
                f"the answer ends by asking the user to choose or authorize: “{_quote(pos.text)}”",
                0.75,
            )
    explicit = bool(_EXPLICIT_ASK.search(view.answer_text))
    lacks = bool(_LACKS_ACCESS.search(view.answer_text)) and bool(
        view.open_todos or _BLOCKED.search(view.answer_text)
    )
    if not (lacks or (explicit and _blocked(view))):
        return None
    for pos in view.answers:  # an explicit ask earlier in a turn that is visibly blocked
        if (
            (explicit and _EXPLICIT_ASK.search(pos.text))
            or (lacks and _LACKS_ACCESS.search(pos.text))
        ) and not _OFFER.search(pos.text):
            return _hit(
                "asks-user",
                "needs-user",
                pos,
                f"the turn is blocked and the answer asks the user for a decision or input: "
                f"“{_quote(pos.text)}”",
                0.75,
            )
    return None


def _claim_positions(view: _View, claim: re.Pattern[str]) -> Iterable[Position]:
    if not claim.search(view.answer_text):
        return
    for a in view.answers:
        for sentence in _sentences(a.text):
            if claim.search(sentence) and not _NEGATION.search(_strip_code(sentence)):
                yield a
                break


@functools.lru_cache(maxsize=4096)
def _strip_code(text: str) -> str:
    return _CODE_SPAN.sub(" ", text)


def _rule_partial_count(view: _View) -> RuleHit | None:
    """``partial-count-claimed-all``: Todo "14/15" while the answer says "all 15"."""
    for todo in view.todos:
        for m in _FRACTION.finditer(todo.text):
            done, total = int(m.group(1)), int(m.group(2))
            if not 0 <= done < total:
                continue
            universal = _rx(
                rf"\ball (the |of the )?{total}\b|\b{total}\s*/\s*{total}\b"
                rf"|(全部|所有)\s*{total}|{total}\s*个[^，。]{{0,8}}(都|全部)"
            )
            for a in view.answers:
                if universal.search(a.text) and not _NEGATION.search(_strip_code(a.text)):
                    return _hit(
                        "partial-count-claimed-all",
                        "contradiction",
                        a,
                        f"Todo {todo.id} says {done}/{total}, the answer says all {total}: "
                        f"“{_quote(a.text)}”",
                        0.85,
                    )
    return None


def _same_topic(todo_text: str, answer_text: str, tokens: set[str]) -> bool:
    if any(_contains_token(answer_text, tok) for tok in tokens):
        return True
    shared = _topics(todo_text) & _topics(answer_text)
    if not shared:
        return False
    qa, qt = _qualifiers(answer_text), _qualifiers(todo_text)
    return not (qa and qa - qt)


def _rule_open_item_claimed_passing(view: _View) -> RuleHit | None:
    """``open-item-claimed-passing``: "still failing"/unfinished Todo vs a success claim."""
    for todo in view.todos:
        open_status = todo.status in ("pending", "in_progress")
        marked = _open_marked(todo.text) or _partial_fraction(todo.text)
        if not (open_status or marked):
            continue
        if not view.success_claims():
            return None
        tokens = _distinctive_tokens(todo, view.todos)
        code = _code_tokens(todo.text)
        if open_status and any(
            _same_topic(todo.text, a.text, code) for a in view.negated_answers()
        ):
            continue  # the answer accounts for the open item: not a claim of success
        names = {t for t in tokens if len(t) >= 5 and (t in code or re.search(r"[-_./]", t))}
        claims = [
            a
            for a in view.success_claims()
            if _same_topic(todo.text, a.text, code)
            or (marked and any(_contains_token(a.text, t) for t in tokens if len(t) >= 5))
            or (names and _claim_names(a.text, names))
        ]
        claims.sort(key=lambda a: not _STRONG_CLAIM.search(a.text))
        for a in claims[:1]:
            return _hit(
                "open-item-claimed-passing",
                "contradiction",
                a,
                f"Todo {todo.id} is not finished or not verified (“{_quote(todo.text, 60)}”), "
                f"but the answer claims success: “{_quote(a.text)}”",
                0.8,
            )
    return None


def _claim_names(text: str, names: set[str]) -> bool:
    """A sentence of ``text`` that claims success and names one of ``names`` (an open
    Todo's own identifier, e.g. the branch or job it was to verify on)."""
    for sentence in _sentences(text):
        if not _SUCCESS_CLAIM.search(sentence) or _NEGATION.search(_strip_code(sentence)):
            continue
        if any(_contains_token(sentence, t) for t in names):
            return True
    return False


def _partial_fraction(text: str) -> bool:
    return any(int(m.group(1)) < int(m.group(2)) for m in _FRACTION.finditer(text))


def _rule_pending_claimed_done(view: _View) -> RuleHit | None:
    """``pending-item-claimed-done``: an open Todo's own tokens reported as done."""
    for todo in view.open_todos:
        tokens = {t for t in _distinctive_tokens(todo, view.todos) if t in _code_tokens(todo.text)}
        if not tokens:
            continue
        mentions = [a for a in view.answers if any(_contains_token(a.text, t) for t in tokens)]
        if any(_NEGATION.search(_strip_code(a.text)) for a in mentions):
            continue
        for a in mentions:
            if _DONE_CLAIM.search(_strip_code(a.text)):
                return _hit(
                    "pending-item-claimed-done",
                    "contradiction",
                    a,
                    f"Todo {todo.id} is still {todo.status}, but the answer reports it done: "
                    f"“{_quote(a.text)}”",
                    0.75,
                )
    return None


#: Verb classes for "the answer denies doing what a completed Todo says was done".
_VERB_CLASSES: dict[str, re.Pattern[str]] = {
    "add": _rx(
        r"\b(add\w*|writ\w*|wrote|creat\w*|implement\w*|introduc\w*|new)\b|补充|新增|添加|增加|写|补|加"
    ),
    "run": _rx(r"\b(run|ran|running|execut\w*|verif\w*)\b|跑|运行|执行|验证"),
    "remove": _rx(r"\b(remov\w*|delet\w*|drop\w*)\b|删|去掉|移除"),
    "change": _rx(r"\b(updat\w*|modif\w*|edit\w*|renam\w*|adjust\w*)\b|更新|修改|调整"),
}
#: Negations that deny a whole topic regardless of the verb ("didn't touch the X",
#: "no X changes were needed").
_DENY_ALL = _rx(
    r"\b(didn['’]t|did not|haven['’]t|have not|won['’]t) (touch|change|modify)\b"
    r"|\bno (new )?[\w ]{0,20}(changes?|modifications?) (were|was|are|is)"
    r" (needed|made|required|necessary)\b"
    r"|没(有)?(动|改动|碰)|未(改动|修改)|不需要(改|修改|变更)"
)
_DENY_VERB = _rx(
    r"(?:\b(didn['’]t|did not|haven['’]t|have not|won['’]t|wasn['’]t|weren['’]t|not|no|never"
    r"|couldn['’]t|could not|unable to|failed to)|\b(?:i|we)(?: still)? (?:can['’]t|cannot))\b"
    r"[^.;:,\n]{0,25}"
    r"|\bno (new )?[\w-]+ (were|was) \w+|没有|没|未|并未|不|无法"
)
#: "Kept / left in place": denies a removal.
_KEPT = _Gate(
    _rx(
        r"\b(kept|keeping|left (?:it |them )?(?:in place|as is|as-is|alone)"
        r"|still (?:there|in place))\b"
        r"|(?<!只)保留了?|留着|没(有)?(删|移除|去掉)"
    ),
    (
        "kept",
        "keeping",
        "left ",
        "still there",
        "still in place",
        "保留",
        "留着",
        "没",
    ),
)
#: Where a denial's object ends: a contrast ("…, only X") or a clause break.
_DENIAL_CLAUSE_BREAK = re.compile(
    r"[;；:：，、]|,\s*(?=(?:only|just|but|except|instead|while|although|though|so|because)\b)"
    r"|\s(?=(?:but|only|except|instead|because)\s)|只是|但是|不过|而是|因为",
    _I,
)


def _denial_clauses(sentence: str) -> list[str]:
    """The clauses of ``sentence`` that carry a denial (negation or "kept")."""
    return [
        c
        for c in _DENIAL_CLAUSE_BREAK.split(sentence)
        if c.strip() and (_DENY_VERB.search(_strip_code(c)) or _KEPT.search(_strip_code(c)))
    ]


@functools.lru_cache(maxsize=4096)
def _denials_of(
    sentence: str,
) -> tuple[tuple[str, str, bool, frozenset[str], frozenset[str]], ...]:
    """Denial clauses of ``sentence``: (clause, clause without code, denies all changes,
    denied verb classes, topic classes). Empty for a user-cited or optional sentence."""
    if _USER_CITED.search(sentence) or _OFFER.search(sentence):
        return ()
    found = []
    for clause in _denial_clauses(sentence):
        plain = _strip_code(clause)
        deny_all = bool(_DENY_ALL.search(plain))
        denied = _denied_verbs(plain)
        if _KEPT.search(plain):
            denied.add("remove")
        if deny_all or denied:
            found.append((clause, plain, deny_all, frozenset(denied), _topics(plain)))
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _prose(text: str) -> str:
    """``text`` without code spans and identifier-like tokens (``drop_duplicates(...)``,
    ``executeInTransaction=false``, ``a.b``): what is left are the words that describe
    the work, so an identifier never passes for a verb of the work."""
    return _IDENTIFIER_LIKE.sub(" ", _strip_code(text))


_IDENTIFIER_LIKE = re.compile(r"[^\s]*(?:[_(=/]|[a-z][A-Z]|\w\.\w)[^\s]*")


def _object_tokens(todo: Position, todos: Sequence[Position]) -> set[str]:
    """Distinctive tokens of a Todo item that name a thing, not an action or a topic word."""
    return {
        tok
        for tok in _distinctive_tokens(todo, todos)
        if not any(rx.search(tok) for rx in _VERB_CLASSES.values()) and not _topics(tok)
    }


def _rule_done_item_denied(view: _View) -> RuleHit | None:
    """``done-item-denied``: a completed Todo vs an answer clause denying that work.

    The denial's clause (up to a contrast such as "…, only X" or a clause break) must
    share a topic class or a distinctive object token with the Todo item, and deny a
    verb of the Todo's kind (add/run/remove/change), deny all changes ("didn't touch"),
    or keep what the Todo removed.
    """
    done = [
        t
        for t in view.todos
        if t.status == "completed"
        and not _open_marked(t.text)
        and not _NEGATION.search(_strip_code(t.text))
    ]
    if not done:
        return None
    plain_answer = view.answer_plain
    if not (_DENY_VERB.search(plain_answer) or _KEPT.search(plain_answer)):
        return None
    facts: list[tuple[Position, frozenset[str], set[str], set[str]]] = []
    for a in view.negated_or_kept():
        for sentence in _sentences(a.text):
            for clause, _plain, deny_all, denied, c_topics in _denials_of(sentence):
                if not facts:
                    facts = [
                        (
                            todo,
                            _topics(todo.text),
                            _object_tokens(todo, view.todos),
                            {n for n, rx in _VERB_CLASSES.items() if rx.search(_prose(todo.text))},
                        )
                        for todo in done
                    ]
                for todo, t_topics, objects, t_verbs in facts:
                    if not (deny_all or denied & t_verbs):
                        continue
                    shared = bool(c_topics & t_topics) or any(
                        _contains_token(clause, tok) for tok in objects
                    )
                    if shared and not _qualifiers(clause) - _qualifiers(todo.text):
                        return _hit(
                            "done-item-denied",
                            "contradiction",
                            a,
                            f"Todo {todo.id} is completed (“{_quote(todo.text, 60)}”), but the "
                            f"answer says it was not done: “{_quote(sentence)}”",
                            0.8,
                        )
    return None


def _denied_verbs(clause: str) -> set[str]:
    """Verb classes that occur after a negation in ``clause``."""
    found: set[str] = set()
    m = _DENY_VERB.search(clause)
    if m is None:
        return found
    window = clause[m.start() : m.end() + 16]
    for name, rx in _VERB_CLASSES.items():
        if rx.search(window):
            found.add(name)
    return found


def _unit_values(text: str) -> dict[str, set[float]]:
    values: dict[str, set[float]] = {}
    for m in _UNIT_VALUE.finditer(text):
        unit = _normal_unit(m.group(2).lower())
        try:
            number = float(m.group(1).replace(",", ""))
        except ValueError:
            continue
        if unit == "s":
            pass
        values.setdefault(unit, set()).add(number)
    return values


def _normal_unit(unit: str) -> str:
    table = {
        "error": "errors",
        "个错误": "errors",
        "warning": "warnings",
        "个警告": "warnings",
        "sec": "s",
        "second": "s",
        "seconds": "s",
        "秒": "s",
        "min": "min",
        "minute": "min",
        "minutes": "min",
        "分钟": "min",
    }
    return table.get(unit, unit)


def _rule_number_mismatch(view: _View) -> RuleHit | None:
    """``number-mismatch``: same unit, different values, Todo value absent from the answer."""
    answer_values = _unit_values(view.answer_text)
    if not answer_values:
        return None
    for todo in view.todos:
        if _BASELINE.search(todo.text):
            continue
        for unit, todo_vals in _unit_values(todo.text).items():
            seen = answer_values.get(unit)
            if not seen or todo_vals & seen:
                continue
            if unit in ("s", "ms", "min") and not (_topics(todo.text) or _code_tokens(todo.text)):
                continue
            for a in view.answers:
                values = _unit_values(a.text).get(unit, set())
                if values - todo_vals:
                    return _hit(
                        "number-mismatch",
                        "contradiction",
                        a,
                        f"Todo {todo.id} reports {sorted(todo_vals)} {unit}, the answer "
                        f"reports otherwise: “{_quote(a.text)}”",
                        0.7,
                    )
    return None


_LEFT_IN_PLACE = _Gate(
    _rx(
        r"\b(left|kept|keep|leaving)\b[^.;\n]{0,40}\b(in place|as is|as-is|untouched|alone)\b"
        r"|\b(didn['’]t|did not|not) (remove|delete|drop|change|rename|migrate|convert)\b"
        r"|保留了?|没(有)?(删|移除|去掉|改)"
    ),
    (
        "left",
        "kept",
        "keep",
        "leaving",
        "n't",
        "n’t",
        "not",
        "保留",
        "没",
    ),
)
_CHANGED = _Gate(
    _rx(
        r"\b(removed|deleted|dropped|renamed|migrated|converted|replaced)\b|删除了|移除了|去掉了|已删除"
    ),
    (
        "removed",
        "deleted",
        "dropped",
        "renamed",
        "migrated",
        "converted",
        "replaced",
        "删除",
        "移除",
        "去掉",
    ),
)


def _rule_answer_self_conflict(view: _View) -> RuleHit | None:
    """``answer-self-conflict``: the same code token reported removed and left in place."""
    if not (_LEFT_IN_PLACE.search(view.answer_plain) and _CHANGED.search(view.answer_plain)):
        return None
    left = [a for a in view.answers if _LEFT_IN_PLACE.search(_strip_code(a.text))]
    changed = [
        a
        for a in view.answers
        if _CHANGED.search(_strip_code(a.text)) and not _NEGATION.search(_strip_code(a.text))
    ]
    for keep in left:
        tokens = {m.group(1).strip().lower() for m in _CODE_SPAN.finditer(keep.text)}
        for a in changed:
            if a.id == keep.id:
                continue
            shared = [t for t in tokens if _contains_token(a.text, t) or f"`{t}`" in a.text.lower()]
            if shared:
                return _hit(
                    "answer-self-conflict",
                    "contradiction",
                    a,
                    f"the answer reports `{shared[0]}` as changed and also as left in place: "
                    f"“{_quote(a.text)}” vs “{_quote(keep.text)}”",
                    0.75,
                )
    return None


def _rule_open_item(view: _View) -> RuleHit | None:
    """``open-item``: a pending/in-progress Todo item the user did not descope."""
    for todo in view.open_todos:
        if view.descoped(todo) or _OPTIONAL.search(todo.text):
            continue
        mentions = view.answer_mentions(todo)
        if any(_USER_CITED.search(a.text) or _NOT_REQUESTED.search(a.text) for a in mentions):
            continue
        if _TODO_WAITS_USER.search(todo.text) and _ask_user_anywhere(view):
            continue
        said = "the answer does not account for it" if not mentions else "the answer leaves it open"
        return _hit(
            "open-item",
            "omission",
            todo,
            f"Todo {todo.id} is still {todo.status} (“{_quote(todo.text, 60)}”) and {said}",
            0.8 if not mentions else 0.7,
        )
    return None


#: A Todo item the agent itself marks as optional / beyond the request.
_OPTIONAL = _rx(
    r"\b(optional|maybe|nice[- ]to[- ]have|if time permits|stretch|not requested)\b"
    r"|可选|如有时间|有空再|非必须|锦上添花"
)
#: The answer explains an open item as outside what the user asked for.
_NOT_REQUESTED = _rx(
    r"\b(wasn['’]t|was not|isn['’]t|is not|not) (part of|in) (the|your|this)"
    r" (request|ask|scope|task)\b|\bnot requested\b|\bout of scope\b|\byou didn['’]t ask\b"
    r"|\bbeyond (the|this) (request|scope)\b"
    r"|不在(这次|本次)?(的)?(需求|范围)|你没有要求|没有要求|超出(了)?(这次|本次)?范围"
)

#: "All done" style claims over the whole turn.
_ALL_DONE = _rx(
    r"\ball (done|finished|complete)\b"
    r"|\beverything (is |'s )?(now )?(done|finished|complete|in place)\b"
    r"|\ball (tasks|items|steps) (are )?(done|complete\w*|finished)\b"
    r"|全部(完成|搞定|做完)|都(已经?)?(完成|做完|搞定)了?|全部都?(已经?)?完成"
)


def _rule_all_done_with_open_items(view: _View) -> RuleHit | None:
    """``all-done-with-open-items``: "all done" while a Todo item is still open."""
    open_items = [t for t in view.open_todos if not (view.descoped(t) or _OPTIONAL.search(t.text))]
    if not open_items:
        return None
    for todo in open_items:
        if any(_NEGATION.search(_strip_code(a.text)) for a in view.answer_mentions(todo)):
            return None  # the answer accounts for the open item
    for a in view.answers:
        plain = _strip_code(a.text)
        if _ALL_DONE.search(plain) and not _NEGATION.search(plain):
            todo = open_items[0]
            return _hit(
                "all-done-with-open-items",
                "contradiction",
                a,
                f"the answer says everything is done, but Todo {todo.id} is still "
                f"{todo.status}: “{_quote(todo.text, 60)}”",
                0.8,
            )
    return None


def _ask_user_anywhere(view: _View) -> bool:
    return any(_ask_kind(view, a) for a in view.answers)


def _rule_failures_remain(view: _View) -> RuleHit | None:
    """``failures-remain``: the request wants passing/green, the answer reports failures."""
    request = _CODE_SPAN.sub("X", view.request_text)
    if not _WANTS_PASS.search(request) or _REPORT_ONLY.search(request):
        return None
    universal = bool(_UNIVERSAL_PASS.search(request))
    for a in view.answers:
        for sentence in _sentences(a.text):
            if (
                _FAILURES_REMAIN.search(sentence) and not _zero_failures(sentence)
            ) or _partial_pass(sentence):
                if not universal and any(
                    _UNRELATED.search(b.text)
                    for b in view.answers
                    if view.paragraph.get(b.id) == view.paragraph.get(a.id)
                ):
                    continue  # a known, unrelated failure outside the scope asked for
                return _hit(
                    "failures-remain",
                    "omission",
                    a,
                    f"the request asks for a passing result, but the answer reports failures "
                    f"remaining: “{_quote(a.text)}”",
                    0.8,
                )
    return None


#: The request wants everything green, not one named suite.
_UNIVERSAL_PASS = _rx(
    r"\b(all|every|whole|full|entire)\b[^.;\n]{0,20}\b(tests?|suites?|checks?|specs?|ci|build)\b"
    r"|\b(the|test) suite\b|\bci\b|全部|所有|整个|全量"
)
#: The answer explains a failure as outside the change (pre-existing, unrelated, flaky).
_UNRELATED = _rx(
    r"\bunrelated\b|\bpre-?existing\b|\bflaky\b|\bnot caused by\b|\bindependent of (my|this|the)"
    r"|\b(also |already )?fails? (the same way )?on (`?main`?|`?master`?|the base branch)\b"
    r"|\bwithout (my|this|the) change\b"
    r"|无关|本来就|原本就|之前就(有|失败|挂)|主干上?也|不是(这次|本次)(改动|修改)(引起|导致)"
)


#: "N of M passed" (done first) and "M 个中 N 个通过" (total first).
_PASS_OF_EN = _rx(
    r"\b(\d{1,6})\s*(?:of|out of|/)\s*(?:the\s+)?(\d{1,6})\b[^.;\n]{0,30}?\b(?:pass(?:ed|es|ing)?"
    r"|green|succeed\w*)\b"
)
_PASS_OF_ZH = re.compile(
    r"(\d{1,6})\s*个?(?:用例|测试)?(?:中|里)\s*(?:有\s*)?(\d{1,6})\s*个?(?:用例|测试)?通过"
)


def _partial_pass(sentence: str) -> bool:
    """A run that reports fewer passes than it ran ("47 of 48 passed", "48 个中 47 个通过")."""
    for m in _PASS_OF_EN.finditer(sentence):
        if int(m.group(1)) < int(m.group(2)):
            return True
    return any(int(m.group(2)) < int(m.group(1)) for m in _PASS_OF_ZH.finditer(sentence))


def _zero_failures(sentence: str) -> bool:
    return bool(re.search(r"\b0 (failed|failures?|errors?)\b", sentence, _I)) and not re.search(
        r"\b[1-9]\d* (failed|failures?|errors?)\b", sentence, _I
    )


#: A request sentence that forbids a kind of change.
_PROHIBITION = _rx(
    r"\b(don['’]t|do not|never|must not|mustn['’]t|should not|shouldn['’]t|without)\s+"
    r"(change|changing|touch|touching|modify|modifying|break|breaking|rename|renaming"
    r"|remove|removing|add|adding|alter|altering|introduce|introducing)\b"
    r"|不要(改|动|修改|删|加|引入|破坏|新增)|别(改|动|删|加)|不能(改|动|删)|不许(改|动)"
)
#: An answer sentence reporting a change.
_CHANGE_REPORTED = _rx(
    r"\b(renamed|changed|removed|deleted|added|modified|replaced|dropped|introduced|altered)\b"
    r"|改了|改成|删除了|删掉了|加了|引入了|新增了|重命名"
)


def _rule_constraint_violated(view: _View) -> RuleHit | None:
    """``constraint-violated``: the answer reports the kind of change the request forbade."""
    if not _CHANGE_REPORTED.search(view.answer_plain):
        return None
    for req in view.requests:
        plain_req = _strip_code(req.text)
        if not _PROHIBITION.search(plain_req):
            continue
        forbidden = _topics(plain_req)
        if not forbidden:
            continue
        for a in view.answers:
            for sentence in _sentences(a.text):
                plain = _strip_code(sentence)
                if not _CHANGE_REPORTED.search(plain) or _NEGATION.search(plain):
                    continue
                if forbidden & _topics(plain):
                    return _hit(
                        "constraint-violated",
                        "omission",
                        req,
                        f"the request forbids this (“{_quote(req.text)}”), but the answer "
                        f"reports it: “{_quote(sentence)}”",
                        0.7,
                    )
    return None


def _rule_admits_unfinished(view: _View) -> RuleHit | None:
    """``answer-admits-unfinished``: the answer says a part is not finished."""
    if not _ADMITS_UNFINISHED.search(view.answer_plain):
        return None
    for a in view.answers:
        plain = _strip_code(a.text)
        if _ADMITS_UNFINISHED.search(plain) and not _USER_CITED.search(plain):
            if _OFFER.search(plain):
                continue
            return _hit(
                "answer-admits-unfinished",
                "omission",
                a,
                f"the answer says part of the work is not finished: “{_quote(a.text)}”",
                0.7,
            )
    return None


#: Deliverables a request can name, with the verbs that make them an ask.
_DELIVERABLES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "tests": (
        _rx(
            r"\b(unit |regression |integration )?tests?\b"
            r"|单测|单元测试|测试用例|(回归|集成|自动化)测试"
        ),
        _rx(r"\b(add|write|include|create|cover)\b|补|加|写|新增|添加"),
    ),
    "docs": (
        _rx(r"\breadme\b|\bdocs\b|\bdocumentation\b|文档"),
        _rx(r"\b(update|document|add|write|mention)\b|更新|补充|写|加"),
    ),
    "changelog": (
        _rx(r"\bchange-?log\b|\brelease notes\b|变更日志|更新日志"),
        _rx(r"\b(update|add|write)\b|更新|补充|写|加"),
    ),
    "version": (
        _rx(r"\bversion\b|版本号?"),
        _rx(r"\b(bump|increment|raise|update)\b|升|改|更新"),
    ),
    "lockfile": (
        _rx(
            r"\block ?files?\b|\b(?:package-lock\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock"
            r"|cargo\.lock|gemfile\.lock|composer\.lock|uv\.lock|go\.sum)\b|锁文件"
        ),
        _rx(r"\b(regenerate|update|refresh|commit|delete|remove|include)\b|重新生成|更新|提交|删"),
    ),
    "rollback": (
        _rx(r"\brollback\b|\broll-back\b|\bdown migrations?\b|回滚"),
        _rx(r"\b(provide|add|write|include|create|prepare|ship)\b|提供|写|加|准备|附上|补"),
    ),
    "masking": (
        _rx(r"\b(mask|masked|redact|redacted)\b|脱敏|掩码|打码"),
        _rx(r"\b(must|should|needs?|make sure|ensure|mask|redact)\b|要|需要|必须|务必|确保"),
    ),
}


#: Evidence that a deliverable exists in the Todos or the answer. For tests, a test
#: artifact or run — not "test account", "test data", "测试账号" and the like.
_DELIVERED: dict[str, re.Pattern[str]] = {
    **_TOPICS,
    "tests": _rx(
        r"\b(unit[- ]?|regression |integration )?tests?\b(?! (account|user|data|environment|env"
        r"|server|cluster|instance|machine|fixtures? only)\b)"
        r"|\bspecs?\b|\btest_|_test\b|\.test\.|\bpytest\b|\bjest\b|\bvitest\b|\bgo test\b"
        r"|单测|单元测试|用例|(回归|集成|自动化|新增|补充?了?|加了?|写了?)(一个|了)?测试"
        r"|测试(?!账号|账户|环境|数据|服务器|机|站|人员|同学|用户|库)"
    ),
    "lockfile": _rx(r"\block ?files?\b|[\w-]\.lock\b|-lock\.|\bgo\.sum\b|锁文件"),
    "rollback": _rx(
        r"\broll-?backs?\b|\broll(?:ed|ing)? back\b|\bdown migrations?\b|\brevert|回滚"
    ),
    "masking": _rx(
        r"\b(mask\w*|redact\w*|obfuscat\w*|anonymi[sz]\w*)|脱敏|掩码|打码|\d\*{3,}|\*{3,}\d"
    ),
}


def _rule_deliverable_missing(view: _View) -> RuleHit | None:
    """``requested-deliverable-missing``: an asked-for test/doc/changelog/version never shows up."""
    if view.thin():
        return None  # a bare report mentions nothing; absence is no evidence
    report = view.todo_text + "\n" + view.answer_text
    for req in view.requests:
        text = req.text
        if _REQUEST_NEGATED.search(text) or _REPORT_ONLY.search(text):
            continue
        for name, (noun, verb) in _DELIVERABLES.items():
            if not (noun.search(text) and verb.search(text)):
                continue
            if name == "tests" and re.search(r"\btests?\b[^.]{0,30}\bpass", text, _I):
                continue
            if _DELIVERED[name].search(report):
                continue
            if any(
                _DESCOPE.search(later.text) and _DELIVERED[name].search(later.text)
                for later in view.later_requests
                if (later.message or 1) > (req.message or 1)
            ):
                continue
            return _hit(
                "requested-deliverable-missing",
                "omission",
                req,
                f"the request asks for {name} (“{_quote(text)}”), and neither the Todo list "
                "nor the answer mentions it",
                0.7,
            )
    return None


# ------------------------------------------------------------------ answer-internal conflicts

#: A line that announces a list with a count: "Changed 5 files:", "共修改了 5 个文件：".
_COUNTED_INTRO = re.compile(
    r"(?<![\d.,])(\d{1,3})\s*(?:个|处|份|条|项)?\s*(?:[\w-]+\s+){0,2}?"
    r"(files?|places?|call[- ]sites?|endpoints?|routes?|modules?|packages?|components?"
    r"|services?|handlers?|tables?|pages?|jobs?|functions?|classes?|steps?|changes?|items?"
    r"|文件|接口|路由|模块|包|组件|服务|表|页面|任务|函数|步骤|处|项)"
    r"[^\d\n]{0,30}[:：][ \t]*$"
    r"|^[ \t]*(?:[\w-]+[ \t]+){0,2}?[\u4e00-\u9fff]{0,6}?"
    r"(?:files?|endpoints?|routes?|modules?|packages?|components?"
    r"|services?|tables?|pages?|functions?|classes?|steps?|changes?|文件|接口|模块|组件|服务|表)"
    r"(?:[ \t]+(?:changed|modified|updated|touched|added|removed|converted|migrated))?"
    r"[ \t]*[(（](\d{1,3})[)）][ \t]*[:：][ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
#: The intro presents a sample, not the whole list ("including", "e.g.", "其中").
_PARTIAL_LIST = _rx(
    r"\b(including|includes|e\.g\.|such as|for example|among them|notably|main|key|some)\b"
    r"|例如|比如|包括|其中|主要|部分|等"
)
_BULLET = re.compile(r"^([ \t]*)(?:[-*•+]|\d{1,3}[.)])\s+\S")


def _rule_list_count_mismatch(view: _View) -> RuleHit | None:
    """``list-count-mismatch``: "changed 5 files:" followed by a list of another length."""
    if not _COUNTED_INTRO.search(view.answer_text):
        return None
    lines = view.answer_text.split("\n")
    for i, line in enumerate(lines):
        m = _COUNTED_INTRO.search(line)
        if m is None or _PARTIAL_LIST.search(line):
            continue
        claimed = int(m.group(1) or m.group(3))
        count, indent = 0, None
        for follow in lines[i + 1 :]:
            if not follow.strip():
                continue
            b = _BULLET.match(follow)
            depth = len(follow) - len(follow.lstrip())
            if b is not None and (indent is None or depth == indent):
                indent = depth if indent is None else indent
                count += 1
            elif indent is not None and depth > indent:
                continue  # a nested bullet or a continuation line
            else:
                break
        if count >= 2 and claimed >= 2 and count != claimed:
            focus = next((a for a in view.answers if a.text.strip() in line), None)
            if focus is None:
                continue
            return _hit(
                "list-count-mismatch",
                "contradiction",
                focus,
                f"the answer announces {claimed} but lists {count}: “{_quote(focus.text)}”",
                0.75,
            )
    return None


#: Verb families for "all X were <verb>ed" versus "I'll <verb> them later".
_ALL_VERB_FAMILIES: dict[str, str] = {
    "move": r"migrat\w*|port(?:ed|ing|s)?|convert\w*|mov(?:e|ed|ing)|switch\w*|replac\w*|swap\w*"
    r"|替换|迁移|迁|切换|换成|换",
    "remove": r"remov\w*|delet\w*|drop\w*|删除|删|移除|去掉",
    "fix": r"fix\w*|updat\w*|renam\w*|修复|修|更新|改名|重命名",
}
_ALL_CLAIM = {
    name: _gate_rx(
        ("all", "every", "全部", "都", "一律"),
        r"\ball (?:the |of the )?(?:\d+ )?(?:[\w-]+ ){0,2}?(?:were |are |have been |got |now )?"
        rf"(?:{verbs})\b"
        rf"|\b(?:{verbs}) (?:all|every)\b|\beverything (?:is |was |has been )?(?:{verbs})\b"
        rf"|(?:全部|都|一律)(?:都)?(?:已经?)?(?:{verbs})",
    )
    for name, verbs in _ALL_VERB_FAMILIES.items()
}
_LATER_SAME = {
    name: _gate_rx(
        (
            "'ll",
            "’ll",
            "will",
            "to be",
            "yet to",
            "still ",
            "plan to",
            "going to",
            "not",
            "never",
            "n't",
            "n’t",
            "之后",
            "以后",
            "后续",
            "回头",
            "稍后",
            "下次",
            "还没",
            "尚未",
            "未",
            "没有",
            "暂时",
        ),
        r"\b(?:i['’]ll|i will|we['’]ll|we will|will|to be|yet to|still (?:need|needs|have|has) to"
        rf"|plan to|going to)\s+(?:\w+\s+){{0,2}}?(?:{verbs})\b"
        rf"|\b(?:not|never|n['’]t)\s+(?:been\s+|yet\s+)?(?:{verbs})"
        rf"|(?:之后|以后|后续|回头|稍后|下次)再(?:{verbs})|(?:还没|尚未|未|没有)(?:{verbs})"
        rf"|暂时(?:保留|没有?(?:{verbs}))",
    )
    for name, verbs in _ALL_VERB_FAMILIES.items()
}


def _rule_all_claimed_some_deferred(view: _View) -> RuleHit | None:
    """``all-claimed-some-deferred``: "all N X were migrated" and "I'll port the rest later"."""
    for name, claim_rx in _ALL_CLAIM.items():
        if not claim_rx.search(view.answer_plain):
            continue
        later_rx = _LATER_SAME[name]
        if not later_rx.search(view.answer_plain):
            continue
        claims = []
        for a in view.answers:
            for sentence in _sentences(a.text):
                plain = _strip_code(sentence)
                if claim_rx.search(plain) and not _NEGATION.search(plain):
                    claims.append((a, sentence))
        if not claims:
            continue
        for b in view.answers:
            for sentence in _sentences(b.text):
                plain = _strip_code(sentence)
                if not later_rx.search(plain) or _OFFER.search(plain) or _USER_CITED.search(plain):
                    continue
                if any(sentence == c for _, c in claims):
                    continue
                a, claim = claims[0]
                return _hit(
                    "all-claimed-some-deferred",
                    "contradiction",
                    a,
                    f"the answer says all were done (“{_quote(claim)}”) and also that some "
                    f"are left for later: “{_quote(sentence)}”",
                    0.75,
                )
    return None


#: A universal claim that the whole suite / all tests pass.
_GREEN_CLAIM = _Gate(
    _rx(
        r"\b(?:whole|full|entire|test) suite\b[^.;\n]{0,20}\b(?:is |was )?(?:now )?"
        r"(?:green|pass(?:es|ed|ing)?)\b"
        r"|\ball (?:the )?(?:\d+ )?tests?(?:\s+(?:in|under|for)\s+[^\s.;,]{0,60})?\s+(?:now )?"
        r"(?:pass(?:es|ed)?|are green)\b"
        r"|\beverything (?:is )?(?:green|pass(?:es|ing)?)\b|\b(?:ci|pipeline) is (?:now )?green\b"
        r"|(?:测试|用例|单测)(?:已经?)?(?:全部|都)(?:已经?)?通过|全绿"
    ),
    (
        "suite",
        "all",
        "every",
        "ci ",
        "pipeline",
        "通过",
        "全绿",
    ),
)
#: A test run's report of failures (not "0 failed").
_FAILED_REPORT = _Gate(
    re.compile(
        r"\bFAILED\b|\bfailures=[1-9]|\b[1-9]\d* (?:failed|failures?|failing)\b"
        r"|[1-9]\d*\s*个?(?:用例|测试)?(?:失败|未通过)|(?:失败|failed)\s*[:：]?\s*[1-9]"
    ),
    (
        "fail",
        "失败",
        "未通过",
    ),
)
_PAST_RUN = _rx(
    r"\b(before|previously|used to|initially|originally|was failing)\b|之前|原来|修复前"
)


def _rule_green_claim_vs_failures(view: _View) -> RuleHit | None:
    """``green-claim-vs-failures``: "the whole suite is green" next to "FAILED (failures=2)"."""
    if not (_GREEN_CLAIM.search(view.answer_plain) and _FAILED_REPORT.search(view.answer_text)):
        return None
    claim = next(
        (
            (a, s)
            for a in view.answers
            for s in _sentences(a.text)
            if _GREEN_CLAIM.search(_strip_code(s)) and not _NEGATION.search(_strip_code(s))
        ),
        None,
    )
    if claim is None:
        return None
    for b in view.answers:
        for sentence in _sentences(b.text):
            if sentence == claim[1] or not _FAILED_REPORT.search(sentence):
                continue
            if _PAST_RUN.search(sentence) or _zero_failures(sentence):
                continue
            same_paragraph = [
                c.text for c in view.answers if view.paragraph.get(c.id) == view.paragraph.get(b.id)
            ]
            if any(_UNRELATED.search(t) for t in same_paragraph):
                continue
            return _hit(
                "green-claim-vs-failures",
                "contradiction",
                claim[0],
                f"the answer claims a green run (“{_quote(claim[1])}”) but reports failures: "
                f"“{_quote(sentence)}”",
                0.8,
            )
    return None


#: "The public API is unchanged" and its Chinese forms.
_API_UNCHANGED = _Gate(
    _rx(
        r"\bpublic (?:api|interface|surface)s?\b[^.;\n]{0,20}\b(?:is|are|remains?|stays?|was|were)"
        r" (?:left )?(?:unchanged|untouched|the same|intact|identical)\b"
        r"|\bno (?:breaking|public[- ]api|api|interface) changes\b"
        r"|\b(?:signatures?|interfaces?) (?:is |are )?(?:unchanged|untouched)\b"
        r"|(?:公开|对外|公共)(?:接口|API)(?:保持|没有|没|未)?(?:不变|变化|改动|变)"
        r"|没有破坏性(?:变更|改动)|接口签名(?:保持)?不变"
    ),
    (
        "public",
        "breaking",
        "api",
        "interface",
        "signature",
        "公开",
        "对外",
        "公共",
        "破坏性",
        "接口",
    ),
)
#: A renamed or removed code-named member ("`a.b` is now `a.c`", "renamed `x` to `y`").
_MEMBER_RENAMED = _Gate(
    _rx(
        r"`[^`\n]+`(?:\s+[\w-]+){0,3}\s+(?:is|are)\s+now\s+`[^`\n]+`"
        r"|\brenamed\b[^.;\n]{0,40}`[^`\n]+`|`[^`\n]+`[^.;\n]{0,30}\brenamed\b"
        r"|\b(?:removed|dropped) the (?:public )?`[^`\n]+` (?:argument|parameter|method|attribute"
        r"|function|field|option)\b"
        r"|`[^`\n]+`\s*(?:重命名为|改名为|更名为)\s*`[^`\n]+`"
    ),
    (
        "now",
        "renamed",
        "removed",
        "dropped",
        "重命名",
        "改名",
        "更名",
    ),
)
_PRIVATE = _rx(r"\b(internal(?:ly)?|private|non-public|test helper)\b|`_|内部|私有")


def _rule_unchanged_claim_vs_change(view: _View) -> RuleHit | None:
    """``unchanged-claim-vs-change``: "public API unchanged" and a renamed public member."""
    if not (_API_UNCHANGED.search(view.answer_plain) and _MEMBER_RENAMED.search(view.answer_text)):
        return None
    claim = next(
        (a for a in view.answers if _API_UNCHANGED.search(_strip_code(a.text))),
        None,
    )
    if claim is None:
        return None
    for b in view.answers:
        for sentence in _sentences(b.text):
            if _MEMBER_RENAMED.search(sentence) and not _PRIVATE.search(sentence):
                if _API_UNCHANGED.search(_strip_code(sentence)):
                    continue
                return _hit(
                    "unchanged-claim-vs-change",
                    "contradiction",
                    claim,
                    f"the answer says the public API is unchanged (“{_quote(claim.text)}”) but "
                    f"reports a rename: “{_quote(sentence)}”",
                    0.75,
                )
    return None


# --------------------------------------------------------------------------- versions

_VERSION = re.compile(r"(?<![\w.])v?(\d{1,4}(?:\.\d{1,4}){1,3})(?![\w.]*\d)")
_VERSION_FROM = _rx(
    r"\b(from|was|previously|old|instead of|before|currently)\b|→|->|\bto\b\s*$|从|原来|之前|旧"
)
_CLAUSE_BREAK = re.compile(r"[;；。]|[:：](?=\s)|，|, (?=(?:but|while|and|so)\b)")


def _rule_version_mismatch(view: _View) -> RuleHit | None:
    """``version-mismatch``: a completed Todo sets X to version V; the answer has X at W.

    Only a clause that names one of the Todo's distinctive object tokens, holds another
    version of the same shape and major number, does not hold V and does not read as
    the old value ("from", "was", "→") counts.
    """
    if not _VERSION.search(view.answer_text):
        return None
    for todo in view.todos:
        if todo.status != "completed" or _open_marked(todo.text):
            continue
        versions = {m.group(1) for m in _VERSION.finditer(todo.text)}
        if len(versions) != 1:
            continue
        (wanted,) = versions
        objects = {
            t
            for t in _distinctive_tokens(todo, view.todos)
            if not any(ch.isdigit() for ch in t)
            and not any(rx.search(t) for rx in _VERB_CLASSES.values())
            and t not in ("bump", "upgrade", "pin", "set", "deploy", "release")
        }
        objects |= {
            part
            for t in objects
            if "-" in t
            for part in t.split("-")
            if len(part) >= 4 and part not in _STOPWORDS and part not in _VERSION_NOISE
        }
        if not objects:
            continue
        for a in view.answers:
            if wanted in a.text and not _VERSION.search(a.text.replace(wanted, "")):
                continue
            for clause in _CLAUSE_BREAK.split(a.text):
                if wanted in clause:
                    continue
                if not any(_contains_token(clause, t) for t in objects):
                    continue
                for m in _VERSION.finditer(clause):
                    other = m.group(1)
                    if _old_version(clause, m.start(), m.end()):
                        continue
                    if _same_version_shape(wanted, other) and other != wanted:
                        return _hit(
                            "version-mismatch",
                            "contradiction",
                            todo,
                            f"Todo {todo.id} is completed with {wanted} "
                            f"(“{_quote(todo.text, 60)}”), but the answer reports {other}: "
                            f"“{_quote(clause)}”",
                            0.75,
                        )
    return None


#: Parts of a hyphenated package name that say nothing about which thing it is.
_VERSION_NOISE = frozenset(["starter", "parent", "plugin", "core", "common", "utils", "main"])
_VERSION_FROM_BEFORE = _rx(
    r"(?:\b(?:from|was|previously|old|instead of|before|currently)\b|从|原来|之前|旧)"
    r"[\s*_`(]*(?:v)?$"
)
_VERSION_TO_AFTER = re.compile(r"[\s*_`)]*(?:→|->|=>|\bto\b|到)", re.I)


def _old_version(clause: str, start: int, end: int) -> bool:
    """Whether the version at ``clause[start:end]`` reads as the old value ("from 3.1.9",
    "3.1.9 → 3.2.5", "was 2.0")."""
    before = clause[max(0, start - 24) : start]
    return bool(_VERSION_FROM_BEFORE.search(before) or _VERSION_TO_AFTER.match(clause, end))


def _same_version_shape(a: str, b: str) -> bool:
    pa, pb = a.split("."), b.split(".")
    return len(pa) == len(pb) and pa[0] == pb[0]


# --------------------------------------------------------------------------- settings and counts

#: A Todo that sets a named setting to a number or boolean ("minReplicas 为 3",
#: "set max_workers to 8", "`retries = 5`"). The key must look like an identifier.
_TODO_SETTING = re.compile(
    r"(?<![\w.])`?(?P<key>[A-Za-z_][\w.]*)`?\s*"
    r"(?:to|=|:|为|改为|改成|设为|设置为|调到|调为|→|->)\s*`?(?P<val>-?\d+(?:\.\d+)?|true|false)\b",
)
#: ``{key}`` bound to a value in the answer ("minReplicas: 4", "`retries` is 5", "为 3").
_ANSWER_SETTING = (
    r"(?<![\w.]){key}`?\s*(?:[:=]|\bis(?: now)?\b|为|是|设为|改为)\s*[`'\"*]*"
    r"(-?\d+(?:\.\d+)?|true|false)\b"
)


def _rule_setting_mismatch(view: _View) -> RuleHit | None:
    """``setting-mismatch``: a completed Todo sets ``key`` to V; the answer shows ``key`` at
    another value W and never at V (an old value — "from 2", "2 →" — does not count)."""
    for todo in view.todos:
        if todo.status != "completed" or not _HAS_VALUE.search(todo.text):
            continue
        if _open_marked(todo.text):
            continue
        for m in _TODO_SETTING.finditer(todo.text):
            if not _IDENTIFIER_SHAPE.search(m.group("key")):
                continue  # a plain word ("replicas to 3") is not a named setting
            key = m.group("key").rsplit(".", 1)[-1]
            wanted = m.group("val").lower()
            if len(key) < 4 or key.lower() not in _lower(view.answer_text):
                continue
            rx = re.compile(_ANSWER_SETTING.format(key=re.escape(key)), _I)
            seen = []
            for a in view.answers:
                for v in rx.finditer(a.text):
                    if _old_version(a.text, v.start(), v.end()):
                        continue
                    seen.append((a, v.group(1).lower()))
            if not seen or any(_same_value(val, wanted) for _, val in seen):
                continue
            a, other = seen[0]
            return _hit(
                "setting-mismatch",
                "contradiction",
                a,
                f"Todo {todo.id} sets {key} to {wanted} (“{_quote(todo.text, 60)}”), but the "
                f"answer shows {key} at {other}: “{_quote(a.text)}”",
                0.75,
            )
    return None


_HAS_VALUE = re.compile(r"\d|true|false", re.I)
_IDENTIFIER_SHAPE = re.compile(r"[a-z][A-Z]|_|\w\.\w")


def _same_value(a: str, b: str) -> bool:
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


#: A completed Todo that says nothing of a kind happened ("nothing destroyed",
#: "no failures", "没有报错").
_TODO_NONE = _rx(
    r"\b(?:nothing|no|zero|0)\s+(?:[a-z]+\s+)?(?P<en>destroy|delet|remov|drop|replac|fail"
    r"|error|warn|conflict|regress|vulnerab|leak)\w*"
    r"|(?:无|没有|零)(?P<zh>失败|错误|报错|警告|冲突|删除)"
)


def _rule_none_claimed_vs_count(view: _View) -> RuleHit | None:
    """``none-claimed-vs-count``: a completed Todo says "nothing destroyed" / "no failures"
    while the answer reports a positive count of that kind ("1 to destroy", "2 failed")."""
    for todo in view.todos:
        if todo.status != "completed":
            continue
        m = _TODO_NONE.search(todo.text)
        if m is None:
            continue
        if m.group("en"):
            count = _rx(rf"\b[1-9]\d*\s+(?:to\s+)?{m.group('en')}\w*")
        else:
            count = re.compile(rf"[1-9]\d*\s*(?:个|处|条)?{m.group('zh')}")
        for a in view.answers:
            for sentence in _sentences(a.text):
                if not count.search(sentence) or _PAST_RUN.search(sentence):
                    continue
                if _rx(r"\b(fixed|resolved)\b|修复|解决").search(sentence):
                    continue
                return _hit(
                    "none-claimed-vs-count",
                    "contradiction",
                    todo,
                    f"Todo {todo.id} says none (“{_quote(todo.text, 60)}”), but the answer "
                    f"reports some: “{_quote(sentence)}”",
                    0.75,
                )
    return None


#: A completed Todo over a whole set ("Convert all 12 class components", "全部替换").
_TODO_ALL = _rx(r"\b(all|every|each)\b|全部|所有|每个")
_TODO_TRANSFORM = _rx(
    r"\b(convert\w*|migrat\w*|port\w*|mov\w*|replac\w*|switch\w*|upgrad\w*|rewrit\w*|renam\w*"
    r"|remov\w*|delet\w*|drop\w*)\b|替换|迁移|改成|改为|升级|重写|删除|移除|转换"
)
#: Some members are still in the old state: "X and Y are still class components".
_STILL_OLD = _rx(
    r"\b(?:are|is|remain|remains)\s+still\b(?!\s+(?:pass\w*|work\w*|green|fine|ok|valid))"
    r"|\bstill\s+(?:use|uses|using|rel(?:y|ies) on|call|calls|on|in)\b"
    r"|(?:仍然|仍|依然|还)(?:是|在用|使用|保留)"
)


def _rule_done_all_some_left(view: _View) -> RuleHit | None:
    """``done-all-some-left``: a completed "convert all X" Todo while the answer says some
    X are still in the old state ("`A`, `B` and `C` are still class components")."""
    if not _STILL_OLD.search(view.answer_plain):
        return None
    for todo in view.todos:
        if todo.status != "completed" or not _TODO_ALL.search(todo.text):
            continue
        if not _TODO_TRANSFORM.search(todo.text):
            continue
        objects = {t for t in _object_tokens(todo, view.todos) if len(t) >= 4}
        if not objects:
            continue
        for a in view.answers:
            for sentence in _sentences(a.text):
                plain = _strip_code(sentence)
                if _USER_CITED.search(plain) or _OFFER.search(plain):
                    continue
                for m in _STILL_OLD.finditer(plain):
                    tail = plain[m.end() : m.end() + 40]
                    if any(_contains_token(tail, t) for t in objects):
                        return _hit(
                            "done-all-some-left",
                            "contradiction",
                            a,
                            f"Todo {todo.id} is completed for all (“{_quote(todo.text, 60)}”), "
                            f"but the answer says some are left: “{_quote(sentence)}”",
                            0.75,
                        )
    return None


# --------------------------------------------------------------------------- request lists

_LIST_VERB_EN = _rx(
    r"^(?:please |also |then |and |now )?(?:add|update|bump|upgrade|migrate|move|convert|port"
    r"|rename|remove|delete|drop|fix|cache|implement|create|write|support|replace|switch|apply"
    r"|enable|disable|expose|wire|cover|document|translate|refactor|set|change|deploy|configure"
    r"|install|pin|backfill|handle|validate|localize|register|mark|clean ?up|show|display|hide"
    r"|disable|log|record|return|emit|send|store|expose|track)\b"
)
_LIST_VERB_ZH = re.compile(
    r"(把|给|将|为|对)[^，。；]{0,40}(加|改|换|删|补|更新|迁移|升级|接入|支持|处理)"
)
_EXAMPLES = _rx(r"\b(e\.g\.|such as|like|for example|etc)\b|例如|比如|等等|之类|等")
_ITEM_SPLIT_EN = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_ITEM_SPLIT_ZH = re.compile(r"、|以及|和|及")


def _request_lists(text: str) -> Iterable[list[str]]:
    """Enumerations of three or more things the request asks to act on."""
    for sentence in re.split(r"(?<=[.!?])\s+|[。！？\n；;]", text):
        sentence = sentence.strip()
        if not sentence or _REQUEST_NEGATED.search(sentence) or _EXAMPLES.search(sentence):
            continue
        after_colon = sentence.split(":", 1)[1].strip() if ":" in sentence else ""
        if _LIST_VERB_EN.search(sentence) or _LIST_VERB_EN.search(after_colon):
            body = after_colon or sentence
            if body.count(",") < 1 or " and " not in body:
                continue
            items = [i for i in _ITEM_SPLIT_EN.split(body.rstrip(".")) if i.strip()]
        elif _LIST_VERB_ZH.search(sentence):
            for clause in re.split(r"[，,]", sentence):
                body = re.split(r"：|:\s", clause)[-1]
                if body.count("、") < 2:
                    continue
                items = [i for i in _ITEM_SPLIT_ZH.split(body) if i.strip()]
                if len(items) >= 3:
                    yield items
            continue
        else:
            continue
        if len(items) >= 3:
            yield items


_TRAILING_COUNT = re.compile(r"[一二三四五六七八九十两\d]+\s*(个|项|种|类)[^、，,]*$")


def _item_tokens(item: str) -> set[str]:
    return {t for t in _code_tokens(item) | _content_words(item) if t.isascii()} or {
        t for t in _content_words(item)
    }


def _mentions_part(text: str, token: str) -> bool:
    """Like :func:`_contains_token`, but a part of an identifier counts too: "deletion
    protection" is mentioned by ``deletion_protection`` and ``deletion.protection``."""
    if _contains_token(text, token):
        return True
    if not token[0].isascii():
        return False
    low = _lower(text)
    return re.search(r"(?<![a-z0-9])" + re.escape(token) + r"(?![a-z0-9])", low) is not None


def _rule_listed_item_missing(view: _View) -> RuleHit | None:
    """``listed-item-missing``: the request lists three or more things to act on; the
    Todos and the answer name all but one, and that one nowhere."""
    if view.thin():
        return None  # a bare report mentions nothing; absence is no evidence
    report = view.todo_text + "\n" + view.answer_text
    for req in view.requests:
        for items in _request_lists(req.text):
            items = [_TRAILING_COUNT.sub("", i) for i in items]
            own = [_item_tokens(i) for i in items]
            tokens = [
                t - set().union(*(o for j, o in enumerate(own) if j != k))
                for k, t in enumerate(own)
            ]
            if any(not t for t in tokens):
                continue
            found = [any(_mentions_part(report, t) for t in toks) for toks in tokens]
            missing = [i for i, f in zip(items, found, strict=True) if not f]
            if len(missing) != 1:
                continue
            if any(
                _DESCOPE.search(later.text)
                and any(_contains_token(later.text, t) for t in _item_tokens(missing[0]))
                for later in view.later_requests
            ):
                continue
            return _hit(
                "listed-item-missing",
                "omission",
                req,
                f"the request lists {len(items)} things; neither the Todos nor the answer "
                f"mention “{_quote(missing[0].strip(), 60)}”",
                0.7,
            )
    return None


#: A request clause that requires something ("must", "each … should", "都要").
_REQUIREMENT = _rx(
    r"\b(must|always|every|each|need(?:s)? to|has to|have to|make sure|ensure|required)\b"
    r"|都要|必须|务必|确保|每(?:条|个|次|一)|需要带|要带"
)
_IDENTIFIER = re.compile(
    r"`([A-Za-z_][\w-]*)`|\b([a-z][a-z0-9]*_[a-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*)\b"
)


def _rule_required_name_missing(view: _View) -> RuleHit | None:
    """``required-name-missing``: a required field/flag named in the request (``request_id``)
    that neither the Todos nor the answer ever name."""
    if view.thin():
        return None  # a bare report mentions nothing; absence is no evidence
    report = view.todo_text + "\n" + view.answer_text
    for req in view.requests:
        for clause in re.split(r"[;。；，!?？！\n]|[.,](?=\s|$)", req.text):
            if not _REQUIREMENT.search(clause) or _REQUEST_NEGATED.search(clause):
                continue
            for m in _IDENTIFIER.finditer(clause):
                name = (m.group(1) or m.group(2)).lower()
                if len(name) < 4 or _contains_token(report, name):
                    continue
                return _hit(
                    "required-name-missing",
                    "omission",
                    req,
                    f"the request requires `{name}` (“{_quote(clause.strip(), 60)}”), and "
                    "neither the Todo list nor the answer mentions it",
                    0.7,
                )
    return None


def _rule_thin_report(view: _View) -> RuleHit | None:
    """``thin-report``: an empty or bare "done" answer and no evidence in the Todos."""
    answer = view.answer_text.strip()
    if len(answer) > (240 if answer.isascii() else 80) or _EVIDENCE.search(view.todo_text):
        return None
    if answer and _EVIDENCE.search(_DEFERRAL.sub(" ", answer)):
        return None
    if len(_sentences(answer)) > 3:
        return None
    focus: Position | None = None
    for a in view.answers:
        if _DEFERRAL.search(a.text):
            focus = a
            break
    target = focus or view.numbering.get("all")
    if target is None:  # pragma: no cover - every Numbering has "all"
        return None
    why = (
        "the final answer is empty and the Todo list gives no evidence"
        if not answer
        else f"the answer gives no actions, paths, commands or results: “{_quote(answer)}”"
    )
    return _hit("thin-report", "unknown", target, why, 0.6)


#: The rules in priority order: the first one that returns a hit wins.
_RULES: tuple[tuple[str, _Rule], ...] = (
    ("asks-user", _rule_asks_user),
    ("partial-count-claimed-all", _rule_partial_count),
    ("open-item-claimed-passing", _rule_open_item_claimed_passing),
    ("pending-item-claimed-done", _rule_pending_claimed_done),
    ("done-item-denied", _rule_done_item_denied),
    ("number-mismatch", _rule_number_mismatch),
    ("version-mismatch", _rule_version_mismatch),
    ("setting-mismatch", _rule_setting_mismatch),
    ("none-claimed-vs-count", _rule_none_claimed_vs_count),
    ("done-all-some-left", _rule_done_all_some_left),
    ("list-count-mismatch", _rule_list_count_mismatch),
    ("green-claim-vs-failures", _rule_green_claim_vs_failures),
    ("unchanged-claim-vs-change", _rule_unchanged_claim_vs_change),
    ("all-claimed-some-deferred", _rule_all_claimed_some_deferred),
    ("answer-self-conflict", _rule_answer_self_conflict),
    ("all-done-with-open-items", _rule_all_done_with_open_items),
    ("open-item", _rule_open_item),
    ("failures-remain", _rule_failures_remain),
    ("constraint-violated", _rule_constraint_violated),
    ("answer-admits-unfinished", _rule_admits_unfinished),
    ("requested-deliverable-missing", _rule_deliverable_missing),
    ("listed-item-missing", _rule_listed_item_missing),
    ("required-name-missing", _rule_required_name_missing),
    ("thin-report", _rule_thin_report),
)

#: Every rule id the judge can report, ``no-rule-fired`` last.
RULE_IDS: tuple[str, ...] = (
    "already-authorized",
    *(name for name, _ in _RULES),
    "no-rule-fired",
)


def explain(numbering: Numbering) -> RuleHit:
    """Run the rules on one numbered material and say which fired (SPEC §5, §13).

    Args:
        numbering: the material numbered by ``jev.positions.number``; Todo positions
            carry their status.

    Returns:
        The first rule hit in priority order, or ``complete`` with focus ``none``
        (rule ``no-rule-fired``). The focus id always exists in ``numbering`` and fits
        the assessment (real position for omission/contradiction/needs-user).

    Deterministic, no I/O; a few milliseconds at 24,000 characters.
    """
    view = _View(numbering)
    for _name, rule in _RULES:
        hit = rule(view)
        if hit is not None:
            return hit
    return RuleHit(
        "no-rule-fired",
        "complete",
        "none",
        "no heuristic found an unfinished, contradicted or user-blocked requirement",
        0.5,
    )


class RulesJudge:
    """The offline heuristic judge (SPEC §13): the embedded default judge.

    ``info`` is ``JudgeInfo(provider="rules", model="heuristic-v1", heuristic=True)``;
    every reply carries ``"heuristic": true`` and the ``rule`` that fired. It reads the
    structured ``numbering`` and ignores the rendered prompt text; it never raises
    transport errors and costs no tokens (``usage`` is ``None``).
    """

    info = JudgeInfo(provider="rules", model="heuristic-v1", heuristic=True)

    @classmethod
    def from_settings(cls, settings: JudgeSettings) -> RulesJudge:
        """Registry factory (``jev.judges.rules:RulesJudge.from_settings``).

        The rules judge has no options; ``settings`` (model, URL, key, timeout) is
        accepted and ignored.
        """
        del settings
        return cls()

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """Judge ``numbering``; return the JSON reply text a model would send.

        Args:
            judge_input: the rendered input (unused; kept for the Judge protocol).
            numbering: the numbered material.

        Returns:
            ``JudgeAnswer(text=<JSON with assessment, focus, confidence, rule,
            heuristic>, usage=None, model="heuristic-v1", latency_ms=<ms>)``.
        """
        del judge_input
        started = time.perf_counter()
        hit = explain(numbering)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        return JudgeAnswer(
            text=hit.to_reply(), usage=None, model=self.info.model, latency_ms=elapsed_ms
        )

    async def ask_async(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        """Async twin of :meth:`ask` (pure CPU, so it simply runs inline)."""
        return self.ask(judge_input, numbering)

    def close(self) -> None:
        """Nothing to release (idempotent)."""
