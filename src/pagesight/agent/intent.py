"""Does a goal change something, or only ask something? The cascade's gate.

The text layer (:mod:`pagesight.planners.llm.textlayer`) answers a goal from the page's text with no
browser, so it must never take a goal that would type, click, save, buy or delete: such a goal
answered "from the text" would report success for something that never happened. Hence the
rule here errs one way only — when unsure, a goal *changes* something:

* a goal naming an action that changes something (``submit``, ``add to cart``, ``log in``,
  ``删除``, ``下单`` …) changes something, wherever the word stands and even negated ("find
  the price but don't buy it" goes to the browser too);
* otherwise it is read-only only when it reads as a question or a look-up (``what …``,
  ``find …``, ``tell me …``, a question mark, ``多少``, ``是什么``, ``查找`` …);
* a request dressed as a question ("could you close my account?", "please empty the
  trash?") or a clause after one ("… ? then empty my cart") changes something unless its
  verb is one that reads (``tell``, ``find``, ``show`` …): the verb lists cannot hold every
  verb a request may use;
* anything else (``open the settings``, ``download the PDF``, a bare noun phrase) is treated
  as changing something.

A few English words are also nouns (``order``, ``book``, ``post``, ``type``, ``change`` …): after
an article, a possessive, ``what``/``which``, a preposition or ``is``, or before ``of``, they are
read as nouns (``the return policy``, ``what type of cable``, ``where is my order``); anywhere
else as the verb. Verbs count in their base form (the form a request uses) and, for those that are
never nouns, their -ing form: ``what changed in 2.0`` asks, ``change the title`` and
``find it, buying it if cheap`` change. Chinese words count as they stand,
except the few noun uses listed (``买家``, ``的评论``, ``登录页面`` …).
"""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> frozenset[str]:
    return frozenset(p.strip() for p in text.split("|"))


# Verbs that change something whatever stands around them.
_VERBS = _words(
    "click tap submit delete remove erase fill buy proceed upload download subscribe unsubscribe "
    "cancel edit modify rename toggle enable disable tick untick uncheck select choose enter "
    "register create add insert send publish reserve apply accept agree decline reject "
    "confirm approve withdraw donate invite rsvp upvote downvote drag move archive restore "
    "reset replace upgrade downgrade renew activate deactivate install unfollow write enroll "
    "enrol opt redeem terminate grab hit put kill "
)

# Verbs that are nouns too: a change only where they stand as a verb (see _NOUN_BEFORE).
_AMBIGUOUS = _phrases(
    "order|book|post|type|change|set|save|update|input|reply|comment|search|return|"
    "transfer|deposit|schedule|message|email|purchase|clear|press|pick|switch|"
    "login|logout|signin|signup|checkout|log in|log out|log on|log into|"
    "sign in|sign up|sign out|sign into|check out|check in|set up|"
    "pay|request|claim|report|rent"
)

# Words that change something only where a request starts: "like the post", "… and rate it",
# "then start a return"; not "looks like", "the exchange rate", "market share", "a book review",
# "when does the course start", "how do I contact support".
_CLAUSE_VERBS = _words(
    "like follow share rate review vote start begin place file contact make hire"
)
_CLAUSE_JOINERS = _words("and then please also to just now")

# Phrases that change something, words that are harmless alone: "check the box".
_PHRASES = (
    r"\bcheck\b[^.?!;]*\b(box|checkbox|option)\b",
    r"\bturn (on|off)\b",
    r"\bswitch (on|off|to)\b",
    r"\bmark (it |them |this |that |the \w+ )?as\b",
    r"\bgo ahead\b",
    r"\b(log|sign) (me|us|him|her|them) (in|out|up|on|off)\b",
)

# Before an ambiguous word, these make it a noun: "the order", "my login", "what type".
_NOUN_BEFORE = _words(
    "a an the my your our their his her its this that these those what which whose "
    "of per for on in at by about with from any no each every same "
    "is are was were be "
    "first last latest next previous recent new current minimum maximum min max total "
    "default online blog order"
)

# A request dressed as a question ("could you close my account?", "please empty the trash?",
# "is it possible to have it cancelled?"), or a clause after a question ("… ? then empty my
# cart", "if so grab one"): the word after it must be one that reads (tell, find, show …), or
# the goal is a request to do something, whatever verb it uses.
_REQUEST_START = re.compile(
    r"(?:^|[,;:.!?]|\band\b)\s*(?:(?:can|could|would|will) you(?: please| kindly)?"
    r"|please|kindly|help me|i (?:want|need|would like|'d like) to|is it possible to"
    r"|go ahead and|let's|let us|then|if so,?|and then)\s+([\w']+)",
    re.IGNORECASE,
)
_READING_WORDS = _words(
    "find tell list show read summarize summarise extract look lookup give name count compare "
    "identify explain describe check locate get quote translate define say see know learn "
    "what which who when where why how is are was were does do did"
)

_QUESTION_START = re.compile(
    # at the start of the goal or of a clause: "go to the FAQ and tell me …"
    r"(?:^|[,;:.!?]|\band\b|\bthen\b)\s*(please\s+|can you\s+|could you\s+|would you\s+|kindly\s+)?"
    r"(what|what's|whats|which|who|who's|whom|whose|when|where|where's|why|how|how's|"
    r"is|are|was|were|does|do|did|can|could|will|would|should|has|have|had|"
    r"find|tell|list|show|read|summarize|summarise|extract|look up|lookup|look for|"
    r"give me|name|count|compare|identify|explain|describe|check|locate|get me the|"
    r"i want to know|i'd like to know|i would like to know|i need to know|"
    r"quote|translate|define|say)\b",
    re.IGNORECASE,
)

# Chinese: changes, and the noun uses that are not changes.
_ZH_CHANGES = _words(
    "修改 更改 改成 改为 改一下 设置 设定 保存 提交 点击 单击 双击 点一下 "
    "购买 买 发送 发给 删除 删掉 移除 登录 登陆 登入 注册 注销 预订 预定 "
    "预约 订购 订票 下单 填写 填入 填上 输入 键入 购物车 添加 新建 创建 取消 "
    "支付 付款 结账 上传 下载 编辑 更新 选择 选中 勾选 关注 订阅 退订 申请 "
    "转账 确认 同意 接受 拒绝 发布 发表 评论 回复 分享 点赞 收藏 搜索 绑定 "
    "解绑 充值 报名 投票 开通 激活 重置 清空 退出 打勾 勾上 "
)
_ZH_NOUN_USES = re.compile(
    r"买家|买方|卖家|的(评论|更新|设置|选择|回复|分享|收藏|申请|注册|预约|订阅)"
    r"|(登录|注册|设置|更新|评论|申请|预约|取消|退出|搜索|下载)"
    r"(页面|页|入口|地址|时间|日期|流程|方式|规则|政策|条件|要求|记录|信息|说明|须知|费用|期限|日志)"
)
_ZH_QUESTION = re.compile(
    r"[?\uff1f]|什么|多少|多久|多长|多大|多远|几|哪|谁|吗|呢|是否|有没有|能否|可否|如何|怎么|怎样|"
    r"为什么|为何|查找|查看|查询|查一下|找到|找出|找一下|告诉我|列出|总结|概括|提取|看看|了解|"
    r"说明一下|介绍"
)

_WORD = r"(?<![\w-]){}(?![\w-])"


def _with_ing(verbs: frozenset[str]) -> frozenset[str]:
    """The verbs and their -ing forms, however spelt ("buying", "choosing", "submitting"):
    "find the price, buying it if under $50" changes something too."""
    forms = set(verbs)
    for v in verbs:
        forms |= {v + "ing", v[:-1] + "ing" if v.endswith("e") else v + v[-1] + "ing"}
    return frozenset(forms)


_VERB_RE = re.compile(
    "|".join(_WORD.format(re.escape(v)) for v in sorted(_with_ing(_VERBS))), re.IGNORECASE
)
_AMBIGUOUS_RE = re.compile(
    "|".join(
        _WORD.format(re.escape(v).replace(r"\ ", r"[\s-]?"))
        for v in sorted(_AMBIGUOUS, key=len, reverse=True)
    ),
    re.IGNORECASE,
)
_CLAUSE_RE = re.compile("|".join(_WORD.format(v) for v in sorted(_CLAUSE_VERBS)), re.IGNORECASE)
_PHRASE_RE = re.compile("|".join(_PHRASES), re.IGNORECASE)
_WORDS = re.compile(r"[\w']+")
_CJK = re.compile(r"[\u3400-\u9fff]")


def changes_something(goal: str) -> bool:
    """Whether ``goal`` may change something on the page or the site (type, click, save,
    buy, log in …) — ``True`` also when it is unclear; ``False`` only for a question or a
    look-up ("what is the refund window", "退款期限是多久", "find the price of X")."""
    text = goal.strip()
    if not text:
        return True
    if _VERB_RE.search(text) or _PHRASE_RE.search(text) or _ambiguous_verb(text):
        return True
    if any(m.group(1).lower() not in _READING_WORDS for m in _REQUEST_START.finditer(text)):
        return True
    if _CJK.search(text):
        verbs_only = _ZH_NOUN_USES.sub(" ", text)  # "登录页面" is a page, not a login
        if any(word in verbs_only for word in _ZH_CHANGES):
            return True
    return not _asks(text)


def _ambiguous_verb(text: str) -> bool:
    """A noun-or-verb word standing as a verb: not after an article, a possessive, a
    preposition, ``what``/``which`` or ``is``, nor before ``of``."""
    for match in _AMBIGUOUS_RE.finditer(text):
        before = _WORDS.findall(text[: match.start()])
        after = _WORDS.findall(text[match.end() :])
        if before and before[-1].lower() in _NOUN_BEFORE:
            continue
        if after and after[0].lower() == "of":
            continue
        return True
    for match in _CLAUSE_RE.finditer(text):
        head = text[: match.start()].rstrip()
        before = _WORDS.findall(head)
        if not head or head[-1] in ",;:.!?" or not before or before[-1].lower() in _CLAUSE_JOINERS:
            return True
    return False


def _asks(text: str) -> bool:
    """The goal reads as a question or a look-up."""
    if text.rstrip().endswith(("?", "\uff1f")):
        return True
    if _QUESTION_START.search(text):
        return True
    return bool(_CJK.search(text) and _ZH_QUESTION.search(text))
