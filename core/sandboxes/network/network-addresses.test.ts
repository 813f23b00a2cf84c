import { describe, expect, it } from "vitest";
import { ServiceError } from "../../errors.ts";
import { checkAllowedHostSyntax, isUnsafeAddress, parseAddress } from "./network-addresses.ts";

describe("checkAllowedHostSyntax", () => {
  it.each([
    ["api.example.com", "api.example.com"],
    ["API.Example.COM", "api.example.com"],
    ["example.com.", "example.com"],
    ["localhost", "localhost"],
    ["203.0.113.9", "203.0.113.9"],
    ["bücher.example", "xn--bcher-kva.example"],
    ["[2001:DB8::1]", "[2001:db8::1]"],
    ["2001:4860:4860::8888", "[2001:4860:4860::8888]"],
    ["my_service.internal", "my_service.internal"],
  ])("accepts %j as %j", (input, expected) => {
    expect(checkAllowedHostSyntax(input)).toBe(expected);
  });

  it.each([
    "",
    "   ",
    "https://api.example.com",
    "api.example.com/path",
    "api.example.com:443",
    "[::1]:8080",
    "[fe80::1%eth0]",
    "[1.2.3.4]",
    "api example.com",
    " api.example.com",
    "*.example.com",
    "user@example.com",
    "example.com?x",
    "a..b",
    "-bad.example",
    `${"a".repeat(64)}.com`,
  ])("refuses %j as invalid_allowed_host", (input) => {
    let error: unknown;
    try {
      checkAllowedHostSyntax(input, 3);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe("invalid_allowed_host");
    expect((error as ServiceError).details).toEqual({ index: 3 });
  });
});

describe("isUnsafeAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.100.100.200",
    "0.0.0.0",
    "192.0.0.192",
    "224.0.0.1",
    "255.255.255.255",
    "198.18.0.1",
    "192.31.196.1",
    "::",
    "::1",
    "[::1]",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "::ffff:0:10.0.0.1",
    "::127.0.0.1",
    "::8.8.8.8",
    "64:ff9b::10.0.0.1",
    "64:ff9b:1::1",
    "64:ff9b:1::808:808",
    "2002:0a00:0001::1",
    "fc00::1",
    "fd00:ec2::254",
    "fe80::1",
    "fe80::1%eth0",
    "fec0::1",
    "ff02::1",
    "2001:db8::1",
    "2001::1",
    "100::1",
    "not-an-ip",
    "010.0.0.1",
    "127.1",
    "1.2.3.256",
    "1:2:3:4:5:6:7:8:9",
  ])("%s is unsafe", (address) => {
    expect(isUnsafeAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "93.184.216.34",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:0808:0808::1",
  ])("%s is safe", (address) => {
    expect(isUnsafeAddress(address)).toBe(false);
  });
});

describe("parseAddress", () => {
  it("reads IPv6 with :: and a trailing IPv4, brackets and a zone", () => {
    expect(parseAddress("1::ffff:1.2.3.4")?.toNormalizedString()).toBe("1:0:0:0:0:ffff:102:304");
    expect(parseAddress("[::]")?.toNormalizedString()).toBe("0:0:0:0:0:0:0:0");
    expect(parseAddress("fe80::1%eth0")?.toNormalizedString()).toBe("fe80:0:0:0:0:0:0:1");
    expect(parseAddress("1::2::3")).toBeNull();
    expect(parseAddress(":1")).toBeNull();
  });

  it("reads only four-part decimal IPv4", () => {
    expect(parseAddress("203.0.113.9")?.toString()).toBe("203.0.113.9");
    for (const text of ["127.1", "0x7f.0.0.1", "2130706433", "010.0.0.1", "1.2.3.256", "example.com"]) {
      expect(parseAddress(text), text).toBeNull();
    }
  });
});
