"""Mail sent after the request that caused it, by the Celery worker.

Sent in the request, a mail that goes only to a registered address (the note to the owner
of a taken address at sign-up, a password-reset link) made that request slower by the
mail server's round trip: the answer's timing told which addresses are registered. In
embedded mode Celery runs the task eagerly, in the request (the console backend is
instant there).
"""

from __future__ import annotations

from celery import shared_task
from django.core.mail import EmailMultiAlternatives


@shared_task(name="accounts.tasks.mail_send", ignore_result=True)
def mail_send(
    *, subject: str, body: str, to: list[str], from_email: str | None = None, html: str = ""
) -> None:
    message = EmailMultiAlternatives(subject, body, from_email, to)
    if html:
        message.attach_alternative(html, "text/html")
    message.send()
