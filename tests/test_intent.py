"""changes_something: the gate in front of the text layer. A goal that may change something
never stops at the text layer, so a goal is read-only only when it plainly asks."""

# ruff: noqa: RUF001 - the Chinese goals use full-width Chinese punctuation on purpose.

from __future__ import annotations

import pytest

from pagesight.agent.intent import changes_something

READ_ONLY = [
    # the questions the text layer is for
    "What is the refund window?",
    "what is the refund window on this page",
    "find the price of the Pro plan",
    "How much does shipping to Canada cost?",
    "Who wrote this article?",
    "When was this post published?",
    "Tell me the store's opening hours",
    "List the system requirements",
    "Summarize the article",
    "Read the article and tell me the main point",
    "Is there a free trial?",
    "Does the warranty cover water damage?",
    "Find the phone number of the support team",
    "I'd like to know the opening hours",
    "Go to the FAQ and tell me the refund window",  # navigating changes nothing
    # nouns that are verbs too, read as the nouns they are here
    "What is the return policy for sale items?",
    "Where is my order?",
    "what's the minimum order for free delivery?",
    "In what order should the steps be done?",
    "What type of battery does it use?",
    "Which book won the prize?",
    "Find the latest press release",
    "What is the check-in time?",
    "What's the exchange rate today?",
    "What's the market share?",
    "Read the book review",
    "What's the request limit?",
    "Which file format is supported?",
    "What are the add-ons included in the Pro plan?",
    "What does the dashboard look like?",
    "Which sites like Amazon ship to Canada?",
    "When does the course start?",
    "When does the store open?",
    "How do I contact support?",
    "What changed in version 2.0?",  # a past tense asks about a change, it makes none
    # Chinese
    "退款期限是多久",
    "这篇文章的作者是谁？",
    "退货政策是什么",
    "运费多少钱",
    "查找客服电话",
    "告诉我营业时间",
    "总结这篇文章",
    "这个产品有几种颜色",
    "登录页面在哪里？",  # a page, not a login
    "取消政策是什么？",  # the cancellation policy, not a cancellation
    # polite requests to read
    "Can you tell me the price?",
    "Could you find the refund window?",
    "Please summarize this page",
    "What is the refund window? Please tell me in days",
]

CHANGES = [
    # the brief's verbs
    "Type 'Alice' into the search box",
    "Fill in the contact form",
    "Set the language to French",
    "Change my email address to a@b.com",
    "Save the draft",
    "Submit the form",
    "Click the Save button",
    "Buy the blue shirt",
    "Send a message to Bob",
    "Delete the second comment",
    "Log in as alice",
    "Sign up for the newsletter",
    "Book a table for two at 8pm",
    "Order a large pizza",
    "Add the blue shirt to cart",
    "add to cart",
    "Subscribe to the newsletter",
    "Update my shipping address",
    "Post a comment saying thanks",
    "Request a refund",
    "Place an order for two",
    "Contact support about my refund",
    "Make Alice Chen a Senior Software Engineer in New York",
    # a question and a change: the change wins
    "Find the cheapest flight and book it",
    "What is the price? Then add it to the cart",
    "What is the refund window? Then start a return for my order",
    "Log into my account and tell me my balance",
    "Find the latest post and like it",
    "Find the post by Bob and share it",
    "Find the Pro plan and check out",
    "search for laptops and tell me the first result",  # typing into the site's search
    # erring on the side of changes
    "Find the price but don't buy anything",  # a negated change still goes to the browser
    "Find the Pro plan's price, buying it if it is under $20",
    "What's the fastest way of cancelling? Go ahead with it",
    "How do I change my password?",  # names a change: not worth the risk
    "Can I return an item after 30 days?",
    "How much do I pay for shipping?",
    "Check the terms box and continue",
    "Open the settings",  # neither a question nor a look-up
    "Download the PDF",
    "refund window",
    "",
    "   ",
    # Chinese: the brief's verbs
    "修改我的邮箱",
    "更改密码",
    "设置语言为中文",
    "保存草稿",
    "提交表单",
    "点击保存按钮",
    "购买这件衬衫",
    "发送消息给Bob",
    "删除第二条评论",
    "登录我的账户",
    "注册一个新账号",
    "预订明天的酒店",
    "下单一份披萨",
    "填写联系表单",
    "在搜索框输入 Alice",
    "把价格最低的加入购物车",
    "找到最便宜的航班并预订",  # a look-up and a change
    "在登录页面输入密码",  # the page is a noun, the typing is not
    "把语言的设置改成中文",
    "如何修改密码？",
    # a request dressed as a question, whatever its verb
    "Could you close my account?",
    "Can you unsubscribe me?",
    "Please empty the trash?",
    "Is it possible to have my account closed?",
    "Please log me out?",
    "Sign me up for the newsletter?",
    "Terminate my subscription?",
    "Find the coupon and redeem it",
    # a question, then a request in a clause of its own
    "What is the price? Then empty my cart",
    "Is the item in stock? If so grab one",
]


@pytest.mark.parametrize("goal", READ_ONLY)
def test_a_goal_that_only_asks_is_read_only(goal: str) -> None:
    assert changes_something(goal) is False


@pytest.mark.parametrize("goal", CHANGES)
def test_a_goal_that_may_change_something_is_never_read_only(goal: str) -> None:
    assert changes_something(goal) is True
