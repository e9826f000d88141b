from __future__ import annotations

from django import forms

from research import industries

OPML_MAX_BYTES = 1024 * 1024


class SourceAddForm(forms.Form):
    url = forms.CharField(label="Feed URL", max_length=2000)
    title = forms.CharField(label="Name (optional)", max_length=300, required=False)


class OpmlUploadForm(forms.Form):
    opml = forms.FileField(label="OPML file")

    def clean_opml(self) -> bytes:
        upload = self.cleaned_data["opml"]
        if upload.size > OPML_MAX_BYTES:
            raise forms.ValidationError(f"The file is larger than {OPML_MAX_BYTES // 1024} KB.")
        return upload.read(OPML_MAX_BYTES + 1)


class IndustryForm(forms.Form):
    industry = forms.ChoiceField(choices=[(name, name.title()) for name in industries.industry_names()])
