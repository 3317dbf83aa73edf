"""Public-suffix lookups that never touch the network.

tldextract's default extractor downloads the Public Suffix List on first use (and writes
a cache under ~/.cache). Aniso runs offline and must not phone home while deciding
whether a message contains an e-mail address, so we use the snapshot bundled with the
package: no URLs to fetch, no cache directory.
"""

from __future__ import annotations

import functools

import tldextract
import tldextract.tldextract


@functools.cache
def offline_extractor() -> tldextract.TLDExtract:
    """The process-wide extractor built from tldextract's bundled suffix snapshot."""
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)


def install_offline_default() -> None:
    """Make `tldextract.extract` (used by presidio's stock EmailRecognizer) offline too.

    We do not use presidio's EmailRecognizer ourselves, but anything else in the process
    that builds a default presidio registry would otherwise trigger a download.
    """
    tldextract.tldextract.TLD_EXTRACTOR = offline_extractor()


def has_public_suffix(domain: str) -> bool:
    """Whether `domain` ends in a real public suffix (mail.ru, gmail.com, ukr.net, пошта.укр)."""
    result = offline_extractor()(domain)
    return bool(result.domain and result.suffix)
