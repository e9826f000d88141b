from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return HttpResponse("Landed")
