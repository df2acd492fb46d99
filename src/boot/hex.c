/* Binary values (channel addresses) as hex text for the KVS. */
#include <string.h>
#include "base/base.h"
#include "boot/boot.h"

void rch_boot_hex_encode(const void *bin, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = bin;
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * len] = '\0';
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

rdmach_status_t rch_boot_hex_decode(const char *text, void *bin, size_t len)
{
    size_t n = strlen(text);
    unsigned char *b = bin;
    if (n != 2 * len)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "hex value has %zu digits, expected %zu", n, 2 * len);
    for (size_t i = 0; i < len; i++) {
        int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return rch_base_err(RDMACH_ERR_PROTOCOL, "hex value has a non-hex character at offset %zu",
                                hi < 0 ? 2 * i : 2 * i + 1);
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    return RDMACH_OK;
}
