"""Throwaway certificates for the TLS tests (python `cryptography`, which aiortc already
brings): a CA, and leaves it signs for the test host name and 127.0.0.1."""

import base64
import datetime
import hashlib
import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

HOST = "sluice.test"


@dataclass
class Leaf:
    certificate: Path
    key: Path
    fingerprint: str  # sha256 of the DER certificate, hex
    spki: str  # base64 sha256 of the SubjectPublicKeyInfo, as --ignore-certificate-errors-spki-list takes it


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem_key(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


class ThrowawayPKI:
    """A CA in `folder`; `leaf()` makes server certificates it signs."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        self.ca = (x509.CertificateBuilder().subject_name(_name("Sluice test CA")).issuer_name(_name("Sluice test CA"))
                   .public_key(self.ca_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(hours=1))
                   .not_valid_after(now + datetime.timedelta(days=2))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                content_commitment=False, key_encipherment=False,
                                                data_encipherment=False, key_agreement=False,
                                                encipher_only=False, decipher_only=False), critical=True)
                   .sign(self.ca_key, hashes.SHA256()))
        self.ca_file = folder / "ca.pem"
        self.ca_file.write_bytes(self.ca.public_bytes(serialization.Encoding.PEM))

    def leaf(self, name: str, rsa_key: bool = False, hosts=(HOST,), addresses=("127.0.0.1",)) -> Leaf:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048) if rsa_key \
            else ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        names = [x509.DNSName(h) for h in hosts] + [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
        certificate = (x509.CertificateBuilder().subject_name(_name(hosts[0] if hosts else name))
                       .issuer_name(self.ca.subject).public_key(key.public_key())
                       .serial_number(x509.random_serial_number())
                       .not_valid_before(now - datetime.timedelta(hours=1))
                       .not_valid_after(now + datetime.timedelta(days=2))
                       .add_extension(x509.SubjectAlternativeName(names), critical=False)
                       .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                       .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                       .sign(self.ca_key, hashes.SHA256()))
        cert_path, key_path = self.folder / f"{name}.pem", self.folder / f"{name}.key"
        cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(_pem_key(key))
        spki = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        return Leaf(cert_path, key_path, hashlib.sha256(certificate.public_bytes(serialization.Encoding.DER)).hexdigest(),
                    base64.b64encode(hashlib.sha256(spki).digest()).decode())

    def client_context(self) -> ssl.SSLContext:
        """Verifies the server against this CA only (and its name, 127.0.0.1 or sluice.test)."""
        return ssl.create_default_context(cafile=str(self.ca_file))


def chromium_tls_args(leaf: Leaf) -> list:
    """Chromium flags: `sluice.test` is 127.0.0.1, and `leaf`'s key is trusted by its SPKI."""
    return [f"--host-resolver-rules=MAP {HOST} 127.0.0.1", f"--ignore-certificate-errors-spki-list={leaf.spki}"]


def served_fingerprint(port: int, context: ssl.SSLContext, host: str = "127.0.0.1") -> str:
    """sha256 (hex) of the certificate a fresh TLS connection to `port` is given."""
    import socket
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=host) as tls:
            return hashlib.sha256(tls.getpeercert(binary_form=True)).hexdigest()
