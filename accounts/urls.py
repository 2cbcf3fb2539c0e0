from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("password/reset/", views.ThrottledPasswordResetView.as_view(), name="password_reset"),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("account/tokens/", views.access_tokens, name="access_tokens"),
    path("account/tokens/<int:pk>/revoke/", views.access_token_revoke, name="access_token_revoke"),
    path("account/bots/", views.bot_accounts, name="bot_accounts"),
    path("account/bots/<int:bot>/tokens/", views.access_tokens, name="bot_tokens"),
    path("chips/", views.chips, name="chips"),
    path("chips/bonus/", views.bonus_claim, name="bonus_claim"),
    path("chips/balance.json", views.chips_balance, name="chips_balance"),
    path("chips/<int:pk>/", views.chips_entry, name="chips_entry"),
]
