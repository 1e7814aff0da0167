from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.generic import RedirectView

urlpatterns = [
    # Leagues were in the games app: their old admin addresses lead to the new ones.
    re_path(r"^admin/games/league/(?P<rest>.*)$",
            RedirectView.as_view(url="/admin/leagues/league/%(rest)s", permanent=True,
                                 query_string=True)),
    path("admin/", admin.site.urls),
    # A password reset link an organiser hands out (the Users admin's action): Django's views.
    path("reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(
        success_url="/reset/done/"), name="password_reset_confirm"),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(),
         name="password_reset_complete"),
    path("", include("server.leagues.urls")),  # /leagues/, /players/
    path("", include("server.games.urls")),
    path("", include("server.web.urls")),  # /games/<id>/, /tv/ (docs/web.md)
]

# Under /api/ every error is the JSON body of docs/protocol.md; pages keep Django's own.
handler400 = "server.games.views.api_bad_request"
handler403 = "server.games.views.api_forbidden"
handler404 = "server.games.views.api_not_found"
handler500 = "server.games.views.api_server_error"
