/* A stand-in for Windows' bcryptprimitives.dll, for running Windows test binaries under Debian's
 * Wine 8, which lacks it. Rust's std asks ProcessPrng for random bytes (HashMap keys, tempfile
 * names); Wine's advapi32 has RtlGenRandom (SystemFunction036), which does the same job.
 * Built from this source by .ci/wine-setup.sh; never shipped, never downloaded. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
