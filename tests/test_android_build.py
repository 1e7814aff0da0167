"""deploy/buildozer.spec against buildozer's documented keys, and the files it names."""

from __future__ import annotations

import configparser
import struct
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"

# The [app] keys buildozer's default.spec documents (buildozer 1.6, iOS/macOS ones left out):
# any other key is ignored by buildozer without a word, as android.manifest.application_attributes
# was.
KNOWN_APP_KEYS = set("""
    android.accept_sdk_license android.activity_class_name android.adb_args android.add_aars
    android.add_activities android.add_assets android.add_compile_options
    android.add_gradle_repositories android.add_jars android.add_libs_arm64_v8a
    android.add_libs_armeabi android.add_libs_armeabi_v7a android.add_libs_mips
    android.add_libs_x86 android.add_packaging_options android.add_resources android.add_src
    android.allow_backup android.ant_path android.api android.apptheme android.archs
    android.backup_rules android.blacklist_src android.copy_libs android.debug_artifact
    android.display_cutout android.enable_androidx android.entrypoint
    android.extra_manifest_application_arguments android.extra_manifest_xml android.features
    android.gradle_dependencies android.home_app android.library_references
    android.logcat_filters android.logcat_pid_only android.manifest.intent_filters
    android.manifest.launch_mode android.manifest.orientation android.manifest_placeholders
    android.meta_data android.minapi android.ndk android.ndk_api android.ndk_path
    android.no-byte-compile-python android.numeric_version android.ouya.category
    android.ouya.icon.filename android.permissions android.presplash_color
    android.presplash_lottie android.release_artifact android.res_xml android.sdk
    android.sdk_path android.service_class_name android.skip_update android.uses_library
    android.wakelock android.whitelist android.whitelist_src author fullscreen
    icon.adaptive_background.filename icon.adaptive_foreground.filename icon.filename
    orientation p4a.bootstrap p4a.branch p4a.commit p4a.extra_args p4a.fork p4a.hook
    p4a.local_recipes p4a.port p4a.setup_py p4a.source_dir p4a.url package.domain
    package.name presplash.filename requirements requirements.source.kivy services
    source.dir source.exclude_dirs source.exclude_exts source.exclude_patterns
    source.include_exts source.include_patterns title version version.filename version.regex
""".split())
KNOWN_BUILDOZER_KEYS = {"log_level", "warn_on_root", "build_dir", "bin_dir"}


def spec() -> configparser.ConfigParser:
    cp = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    cp.optionxform = str  # type: ignore[assignment,method-assign]  # buildozer: case-sensitive
    cp.read(DEPLOY / "buildozer.spec", encoding="utf-8")
    return cp


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    w, h = struct.unpack(">II", data[16:24])
    return w, h


def test_every_key_is_one_buildozer_documents():
    cp = spec()
    assert set(cp.sections()) == {"app", "buildozer"}
    assert set(cp["app"]) - KNOWN_APP_KEYS == set()
    assert set(cp["buildozer"]) - KNOWN_BUILDOZER_KEYS == set()


def test_requirements_are_pinned_and_the_target_api_is_current():
    app = spec()["app"]
    reqs = [r.strip() for r in app["requirements"].split(",")]
    assert {r.split("==")[0] for r in reqs} >= {"python3", "kivy", "websockets"}
    assert all("==" in r for r in reqs), reqs
    assert int(app["android.api"]) >= 36  # Google Play from 31 August 2026
    assert int(app["android.minapi"]) == int(app["android.ndk_api"])
    assert app["android.wakelock"] == "True"
    assert app["p4a.branch"].startswith("v")
    assert "zeroconf" not in app["requirements"]  # off on Android: see the spec's comment


def test_icon_splash_and_manifest_files_exist():
    app = spec()["app"]
    assert png_size(DEPLOY / app["icon.filename"]) == (512, 512)
    assert png_size(DEPLOY / app["presplash.filename"]) == (512, 512)
    fg = png_size(DEPLOY / app["icon.adaptive_foreground.filename"])
    assert fg == png_size(DEPLOY / app["icon.adaptive_background.filename"]) and fg[0] == fg[1]
    extra = (DEPLOY / app["android.extra_manifest_application_arguments"]).read_text()
    assert extra.strip() == 'android:usesCleartextTraffic="true"'


def test_without_zeroconf_the_app_says_so_and_the_address_stays(monkeypatch):
    """What the Android build does: no python-zeroconf, no list, a reason."""
    from client_kivy.discovery import Discovery

    monkeypatch.setitem(sys.modules, "zeroconf", None)  # import fails as on the device
    d = Discovery(interfaces=["127.0.0.1"])
    assert d.start() is False
    assert d.error == "finding servers needs python-zeroconf"
    assert not d.running and d.servers == []


@pytest.mark.parametrize("name", ["client_kivy/discovery.py", "main.py",
                                  "client_kivy/sounds/move.wav", "client_kivy/rules/teka.md"])
def test_the_staged_tree_has_the_app(tmp_path, name):
    from client_kivy.android_stage import stage

    out = Path(stage(str(tmp_path / "android")))
    assert (out / name).is_file()
    assert not list(out.rglob("*.so"))
