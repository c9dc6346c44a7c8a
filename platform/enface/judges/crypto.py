"""API keys stored encrypted (Fernet), with a key derived from the app's secret.

The Fernet key is SHA-256("enface judge api keys" + SECRET_KEY) (the app's
``ENFACE_SECRET_KEY``, or the secret generated into the data folder). Rotating
the secret makes stored keys unreadable: the judge then fails with a message
saying to enter the key again, and never with the ciphertext.
"""

from __future__ import annotations

import base64
import hashlib


class SecretUnreadable(RuntimeError):
    """A stored key cannot be decrypted (the app's secret changed)."""


def _fernet(secret_key: str):
    # cryptography is imported here: only adding or running a judge needs it.
    from cryptography.fernet import Fernet

    if not secret_key:
        raise RuntimeError("the app has no SECRET_KEY to encrypt judge keys with")
    digest = hashlib.sha256(b"enface judge api keys\0" + secret_key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def encrypt(plaintext: str, secret_key: str) -> bytes:
    return _fernet(secret_key).encrypt(plaintext.encode())


def decrypt(token: bytes, secret_key: str) -> str:
    from cryptography.fernet import InvalidToken

    try:
        return _fernet(secret_key).decrypt(bytes(token)).decode()
    except InvalidToken:
        raise SecretUnreadable("the stored API key cannot be decrypted (the app's secret key changed): "
                               "enter the key again") from None
