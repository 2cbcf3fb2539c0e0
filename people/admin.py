from django.contrib import admin

from people.models import Block, FriendRequest, Friendship, Invite


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ("blocker", "blocked", "created_at")
    search_fields = ("blocker__username", "blocked__username")
    raw_id_fields = ("blocker", "blocked")


@admin.register(Friendship)
class FriendshipAdmin(admin.ModelAdmin):
    list_display = ("user", "friend", "created_at")
    search_fields = ("user__username", "friend__username")
    raw_id_fields = ("user", "friend")


@admin.register(FriendRequest)
class FriendRequestAdmin(admin.ModelAdmin):
    list_display = ("sender", "recipient", "created_at")
    search_fields = ("sender__username", "recipient__username")
    raw_id_fields = ("sender", "recipient")


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ("sender", "recipient", "table", "created_at")
    search_fields = ("sender__username", "recipient__username")
    raw_id_fields = ("sender", "recipient", "table")
