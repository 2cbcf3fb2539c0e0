"""Players' profiles, blocks, friends and invites (docs/protocol.md, "Friends, invites
and blocks (HTTP)")."""

from django.urls import path

from people import views

app_name = "people"

urlpatterns = [
    path("players/<str:username>/", views.player_profile, name="profile"),
    path("players/<str:username>/block/", views.block, name="block"),
    path("players/<str:username>/unblock/", views.unblock, name="unblock"),
    path("friends/", views.friends_page, name="friends"),
    path("friends/panel/", views.friends_panel, name="friends_panel"),
    path("friends/panel.json", views.friends_json, name="friends_json"),
    path("friends/request/", views.friend_request, name="friend_request"),
    path("friends/accept/", views.friend_accept, name="friend_accept"),
    path("friends/decline/", views.friend_decline, name="friend_decline"),
    path("friends/cancel/", views.friend_cancel, name="friend_cancel"),
    path("friends/remove/", views.friend_remove, name="friend_remove"),
    path("friends/invite/", views.invite_send, name="invite_send"),
    path("friends/invites/<int:invite_id>/dismiss/", views.invite_dismiss, name="invite_dismiss"),
]
