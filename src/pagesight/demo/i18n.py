"""Every label Orbit CRM shows, in English and Chinese: one table, read by every template
(``t("save")``) and handed to the page scripts for what they draw themselves.

The data (names, job titles, cities, teams) is not translated: it is what people typed.
"""

from __future__ import annotations

from collections.abc import Callable

LANGUAGES = ("en", "zh")
HTML_LANG = {"en": "en", "zh": "zh-CN"}

TEXT: dict[str, tuple[str, str]] = {
    # key: (English, Chinese)
    "app": ("Orbit CRM", "Orbit CRM"),
    "nav": ("Main", "主导航"),
    "contacts": ("Contacts", "联系人"),
    "messages": ("Messages", "消息"),
    "deals": ("Deals", "商机"),
    "settings": ("Settings", "设置"),
    "switch_language": ("中文", "English"),
    "switch_language_label": ("Switch the language to Chinese", "切换到英文"),
    "skip": ("Skip to content", "跳到正文"),
    "dismiss": ("Dismiss", "关闭"),
    "breadcrumb": ("Breadcrumb", "导航路径"),
    # contacts list
    "search_contacts": ("Search contacts", "搜索联系人"),
    "search_placeholder": ("Name, company, city…", "姓名、公司、城市…"),
    "export_csv": ("Export CSV", "导出 CSV"),
    "new_contact": ("New contact", "新建联系人"),
    "n_contacts": ("{n} contacts", "{n} 个联系人"),
    "one_contact": ("1 contact", "1 个联系人"),
    "no_contacts": ("No contacts match your search.", "没有符合搜索的联系人。"),
    "contact_list": ("Contact list", "联系人列表"),
    "edit": ("Edit", "编辑"),
    "actions": ("Actions", "操作"),
    # fields
    "name": ("Full name", "姓名"),
    "job_title": ("Job title", "职位"),
    "company": ("Company", "公司"),
    "email": ("Email", "电子邮件"),
    "phone": ("Phone", "电话"),
    "location": ("Location", "地点"),
    "team": ("Team", "团队"),
    "newsletter": ("Subscribed to the newsletter", "订阅新闻简报"),
    "follow_up": ("Next follow-up", "下次跟进"),
    "yes": ("Yes", "是"),
    "no": ("No", "否"),
    "none": ("None", "无"),
    "choose_team": ("Choose a team", "选择团队"),
    "choose_location": ("Choose a location", "选择地点"),
    # contact page
    "details": ("Details", "详细信息"),
    "open_profile": ("Open public profile", "打开公开资料"),
    "send_message": ("Send message", "发送消息"),
    "delete": ("Delete contact", "删除联系人"),
    "confirm_delete": ("Delete {name}? This cannot be undone.", "删除 {name}？此操作无法撤销。"),
    "deleted": ("Deleted {name}.", "已删除 {name}。"),
    "notes": ("Notes", "备注"),
    "new_note": ("New note", "新备注"),
    "note_toolbar": ("Formatting", "格式"),
    "bold": ("Bold", "粗体"),
    "italic": ("Italic", "斜体"),
    "bullets": ("Bulleted list", "项目符号列表"),
    "save_note": ("Save note", "保存备注"),
    "note_saved": ("Note saved.", "备注已保存。"),
    "note_empty": ("Write something in the note first.", "请先写点备注内容。"),
    "no_notes": ("No notes yet.", "还没有备注。"),
    "recent_deals": ("Deals", "商机"),
    # new contact
    "create_contact": ("Create contact", "创建联系人"),
    "created": ("Created {name}.", "已创建 {name}。"),
    # edit form
    "edit_contact": ("Edit contact", "编辑联系人"),
    "save": ("Save", "保存"),
    "cancel": ("Cancel", "取消"),
    "saved": ("Saved", "已保存"),
    "nothing_changed": ("Saved: nothing changed.", "已保存：没有更改。"),
    "fix_errors": ("Please correct the fields marked below.", "请更正下面标出的字段。"),
    "err_name": ("Enter a name.", "请输入姓名。"),
    "err_email": (
        "Enter an email address such as name@example.com.",
        "请输入电子邮件地址，例如 name@example.com。",
    ),
    "err_location": ("Choose a location from the list.", "请从列表中选择地点。"),
    "err_team": ("Choose a team from the list.", "请从列表中选择团队。"),
    "err_date": ("Enter a date such as 2026-12-31.", "请输入日期，例如 2026-12-31。"),
    # profile
    "public_profile": ("Public profile", "公开资料"),
    "works_at": ("{title} at {company}", "{company} · {title}"),
    "based_in": ("Based in {location}", "所在地：{location}"),
    # messages
    "inbox": ("Inbox", "收件箱"),
    "compose": ("New message", "写消息"),
    "to": ("To", "收件人"),
    "from": ("From", "发件人"),
    "subject": ("Subject", "主题"),
    "message": ("Message", "内容"),
    "send": ("Send", "发送"),
    "sent_to": ("Message sent to {name}.", "消息已发送给 {name}。"),
    "received": ("Received", "已收到"),
    "sent": ("Sent", "已发送"),
    "date": ("Date", "日期"),
    "no_messages": ("No messages yet.", "还没有消息。"),
    "choose_contact": ("Choose a contact", "选择联系人"),
    "err_to": ("Choose who the message is for.", "请选择收件人。"),
    "err_subject": ("Enter a subject.", "请输入主题。"),
    "err_body": ("Write the message.", "请填写消息内容。"),
    # deals
    "deal_board": ("Deal board", "商机看板"),
    "board_help": (
        "Drag a card to another column, or use its Move to list.",
        "将卡片拖到另一列，或使用“移到”列表。",
    ),
    "move_to": ("Move to…", "移到…"),
    "move_deal": ("Move {title} to", "将 {title} 移到"),
    "moved": ("Moved {title} to {stage}.", "已将 {title} 移到{stage}。"),
    "move_failed": ("Could not move the deal; try again.", "无法移动商机，请重试。"),
    "stage_lead": ("Lead", "线索"),
    "stage_qualified": ("Qualified", "已确认"),
    "stage_proposal": ("Proposal", "方案"),
    "stage_won": ("Won", "赢单"),
    "stage_lost": ("Lost", "丢单"),
    "amount": ("Amount", "金额"),
    "total": ("Total", "合计"),
    "owner": ("Owner", "负责人"),
    "owned_by": ("Owner: {name}", "负责人：{name}"),
    "unassigned": ("Unassigned", "未分配"),
    "all_owners": ("All owners", "所有负责人"),
    "filter": ("Filter", "筛选"),
    "stage": ("Stage", "阶段"),
    "contact": ("Contact", "联系人"),
    "deal_saved": ("Saved: the owner is now {name}.", "已保存：负责人现在是 {name}。"),
    "err_owner": ("Choose an owner from the list.", "请从列表中选择负责人。"),
    "back_to_board": ("Back to the deal board", "返回商机看板"),
    # settings
    "language": ("Language", "语言"),
    "notifications": ("Notifications", "通知"),
    "email_notifications": ("Email notifications", "电子邮件通知"),
    "save_settings": ("Save settings", "保存设置"),
    "settings_saved": ("Settings saved.", "设置已保存。"),
    "english": ("English", "English"),
    "chinese": ("中文 (Chinese)", "中文"),
    "not_found": ("Not found", "未找到"),
    "not_found_text": ("There is no such page or contact.", "没有这个页面或联系人。"),
    "back_to_contacts": ("Back to contacts", "返回联系人"),
}


def language(value: str | None) -> str:
    """The language a ``lang`` cookie names; English for anything else."""
    return value if value in LANGUAGES else "en"


def translator(lang: str) -> Callable[..., str]:
    """``t("key", name=...)``: the label in ``lang``, its ``{placeholders}`` filled."""
    column = LANGUAGES.index(language(lang))

    def t(key: str, **values: object) -> str:
        text = TEXT[key][column]
        return text.format(**values) if values else text

    return t
