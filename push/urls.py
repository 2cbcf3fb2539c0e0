from django.urls import path

from push import views

urlpatterns = [
    path("push/subscriptions/", views.subscriptions, name="push_subscriptions"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("offline/", views.offline, name="offline"),
]
