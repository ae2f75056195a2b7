package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.security.credential.CertificateCredential;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;

/**
 * A client certificate's tenant names the CA that issued it: a DN is unique only per issuing CA, so
 * a server that trusts two CAs (two partners, an internal and a public CA) keeps CA2's
 * "CN=alice,O=Acme" apart from CA1's. Certificates made with keytool: CN=ca1 and CN=ca2 each signed
 * one.
 */
class CertificateTenantTest {
  static final String BY_CA1 =
      "-----BEGIN CERTIFICATE-----\n"
          + "MIIC8jCCAdqgAwIBAgIJALTI/kWcXKEzMA0GCSqGSIb3DQEBCwUAMA4xDDAKBgNV\n"
          + "BAMTA2NhMTAeFw0yNjEyMDUwNjQ4NDFaFw0zNjEyMDIwNjQ4NDFaMB8xDTALBgNV\n"
          + "BAoTBEFjbWUxDjAMBgNVBAMTBWFsaWNlMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n"
          + "MIIBCgKCAQEAvDwmK00n1g8npYD9+8k86J8nm7Ee4JKmjtzTAhRyYpRCus11hMyv\n"
          + "LJvSGJj9NzSKzGJSH5DXw32cdGt9bQxl+DFnCxxqJF76HB5vJia5wJdzm9LKTtwg\n"
          + "iGJRTloJmtZsQLGtz6WAU71exmPiWaUtEmaJysxZs48ZtgesfU+8t+9bhw46oJBV\n"
          + "6LTk6WiYIQ2RHAdD/syfLm0X1c5jG8CpsORcAHykg3FiHOyz4RFCvKs25R60Vc5d\n"
          + "+Y4CZz+5Njh3R0+fPgJe+4UlxROMDtECk6YNp2LKJxf3f6mVeWGZ9C8riU4F0bm9\n"
          + "bwqcMcMpFQwiXaC+vAvtPI7gf7gNE1n1DwIDAQABo0IwQDAdBgNVHQ4EFgQUjP6R\n"
          + "h5+oLQ5GfvRQ6u5ruBmVQXQwHwYDVR0jBBgwFoAU8qDuNOkJjJeSBF0j6eQy6/Cl\n"
          + "34kwDQYJKoZIhvcNAQELBQADggEBACx6h60K0+JDst5xne+N2HRQsPCkBE4uljgL\n"
          + "oqJH7uQyLUN+SOszbswWr/UODQt4YiOVuVYah+zibkYf5Fi8jMnGM1L76kaMRUvx\n"
          + "zxL77KO7uIz3GcTku6bI3ejRZ/tftmDQlXdwF4DSb8Rf8Ft3dk0/p/3JRDWaCVaZ\n"
          + "kI++dhVGyBwxhKfqG9bk5K84M0BMh84cutdYPPAL2MZFskiqblnr7iMcz+7qGPcv\n"
          + "nHX77qF3b3v0Yxk4KYljobwT/coLNnPWgURDkR7dbXwsLU/XCB9oiqzoHZCOl7P0\n"
          + "oWqZYPKPcYwIBUzKjQQHZCW7l5et0Ta1RUi+FX7OhNXFhg16NUA=\n"
          + "-----END CERTIFICATE-----";
  static final String BY_CA2 =
      "-----BEGIN CERTIFICATE-----\n"
          + "MIIC8TCCAdmgAwIBAgIIJTi4F34HQLgwDQYJKoZIhvcNAQELBQAwDjEMMAoGA1UE\n"
          + "AxMDY2EyMB4XDTI2MTIwNTA2NDg0M1oXDTM2MTIwMjA2NDg0M1owHzENMAsGA1UE\n"
          + "ChMEQWNtZTEOMAwGA1UEAxMFYWxpY2UwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAw\n"
          + "ggEKAoIBAQDdF5Q70WqxI5H20Wi7fzovW4TuCDMh6KKrg9TDGtn0HGTc1dT9DWxQ\n"
          + "Pc1GpEbNoVQ6J30kpqUETsEH5CnnGoPGMelrLoUu1feEsVL/i3amPdbNl6RQHcSf\n"
          + "kDrRQsn9Buin5gL1COTRAEgqmuS1lbUf/VT6PDAWsmDfrgTBnp45J8FQdj1ku2yk\n"
          + "u2dmRP76Y2FJ4/yVBXvN1tjOpRXtInwaOLMOOReF59ZQO5YxLrQ/DHiEDbAuqxxW\n"
          + "CaaDTCG5SxAd1m1n0s0cWhDM7BiQlr87E3r9IxIJ8wjGd7vAM9bwcNlGdgCvqpyn\n"
          + "CjwiI/TsrPwwPUYDniRKNJfKfGScgOVVAgMBAAGjQjBAMB0GA1UdDgQWBBR2hakN\n"
          + "a1+lWONT0BQDj56sb8xygjAfBgNVHSMEGDAWgBRSuW7rPpOiojnoLsSdjSQJjyMB\n"
          + "UTANBgkqhkiG9w0BAQsFAAOCAQEAlECNbn6c38h9ATLn9uJSPj5/cFu8lkAvUmje\n"
          + "Nhi1nwGTvwG4TdOchPDPDffetjKtmXMe8rQ6DNqADBHcK3uKijPA+SBHxSz4F7Kp\n"
          + "uMyNAcvSLBbVIhrcGl5TZDkGRMNcloOP6Pygt905mnArMO0vk6yzq0ejXjnXrmtN\n"
          + "Ipm91317KUH7T1+oo23yZciEdIVLXflsrmreyW0tO8QpXMbGN3HwbEI1LlCtV0/H\n"
          + "Da+ofDxz9FxK4YeX3Hlawao+Dkg+jWiIz1VNAdM3Z6lERdWLIAEyiX8m/4YJUwmR\n"
          + "W7u1o0/FOpx5uKQpy/ZjevnmDBZLsHnJGkHzcfbVMbhfjh667g==\n"
          + "-----END CERTIFICATE-----";

  @Test
  void oneSubjectDnFromTwoCasIsTwoTenants() throws Exception {
    X509Certificate one = cert(BY_CA1);
    X509Certificate two = cert(BY_CA2);
    assertThat(one.getSubjectX500Principal()).isEqualTo(two.getSubjectX500Principal());
    assertThat(one.getIssuerX500Principal()).isNotEqualTo(two.getIssuerX500Principal());

    String a = CallTenant.tenantOf(mtls(one));
    String b = CallTenant.tenantOf(mtls(two));
    assertThat(a).isEqualTo("principal:%certificate:CN=ca1#CN=alice,O=Acme");
    assertThat(b).as("another CA's certificate of the same DN").isNotEqualTo(a);
  }

  /** As Quarkus' X509IdentityProvider builds it: the subject as principal, the certificate. */
  private static SecurityIdentity mtls(X509Certificate c) {
    return QuarkusSecurityIdentity.builder()
        .setPrincipal(c.getSubjectX500Principal())
        .addCredential(new CertificateCredential(c))
        .build();
  }

  private static X509Certificate cert(String pem) throws Exception {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
  }
}
