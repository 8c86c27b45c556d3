/* SPDX-License-Identifier: MIT */
/* Applying the access rules (rules.c) to the host: each writable path gets
 * the instance SID's inherited "modify" grant and the low mandatory label.
 * The path may be the command's (the workspace): it is opened without
 * following a reparse point (symlink, junction) and must be a directory or
 * a file of its own, and the security descriptor is set on that handle. */
#include <errno.h>
#include <string.h>

#include "windows/launch.h"

#include <aclapi.h>
#include <sddl.h>

#define MODIFY_MASK 0x1301bf

static void local_freep(void *p)
{
        if (*(HLOCAL *)p)
                LocalFree(*(HLOCAL *)p);
}
#define _cleanup_local_ _cleanup_(local_freep)

static int acl_fail(cordon_error **e, const char *path, const char *step)
{
        DWORD err = GetLastError();
        return error_set(e, win_errno(err),
                         "windows backend: access rule for %s: %s failed (Windows error %lu); the writable paths "
                         "must be directories you own, on NTFS", path, step, (unsigned long)err);
}

/* Is the grant already there (an explicit, inherited allow of the mask)? */
static bool has_grant(PACL dacl, PSID sid)
{
        ACL_SIZE_INFORMATION info;
        if (!dacl || !GetAclInformation(dacl, &info, sizeof(info), AclSizeInformation))
                return false;
        for (DWORD i = 0; i < info.AceCount; i++) {
                ACCESS_ALLOWED_ACE *ace = NULL;
                if (!GetAce(dacl, i, (void **)&ace) || ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE)
                        continue;
                BYTE want = OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE;
                if ((ace->Header.AceFlags & (want | INHERITED_ACE)) == want && (ace->Mask & MODIFY_MASK) == MODIFY_MASK &&
                    EqualSid((PSID)&ace->SidStart, sid))
                        return true;
        }
        return false;
}

static int grant_path(const char *path, PSID sid, PACL label, cordon_error **e)
{
        _cleanup_free_ wchar_t *w = win_wide(path);
        if (!w)
                return error_set(e, EILSEQ, "windows backend: %s: not valid UTF-8", path);
        HANDLE h = CreateFileW(w, READ_CONTROL | WRITE_DAC | WRITE_OWNER, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                               NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
        if (h == INVALID_HANDLE_VALUE)
                return acl_fail(e, path, "opening it");
        BY_HANDLE_FILE_INFORMATION fi;
        int r = 0;
        PACL dacl = NULL, merged = NULL;
        PSECURITY_DESCRIPTOR sd = NULL;
        if (!GetFileInformationByHandle(h, &fi))
                r = acl_fail(e, path, "GetFileInformationByHandle");
        else if (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
                r = error_set(e, ELOOP, "windows backend: %s is a symlink or junction: cordon grants access to "
                                        "no path it would have to follow; name its target instead", path);
        else if (GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl, NULL, &sd))
                r = acl_fail(e, path, "GetSecurityInfo");
        else if (!has_grant(dacl, sid)) {
                EXPLICIT_ACCESS_W ea = {MODIFY_MASK, GRANT_ACCESS, SUB_CONTAINERS_AND_OBJECTS_INHERIT,
                                        {NULL, NO_MULTIPLE_TRUSTEE, TRUSTEE_IS_SID, TRUSTEE_IS_UNKNOWN, (LPWSTR)sid}};
                if (SetEntriesInAclW(1, &ea, dacl, &merged))
                        r = acl_fail(e, path, "SetEntriesInAcl");
                /* Windows propagates the inherited entries to what is below;
                 * it does not follow reparse points doing so */
                else if (SetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION | LABEL_SECURITY_INFORMATION,
                                         NULL, NULL, merged, label))
                        r = acl_fail(e, path, "SetSecurityInfo (grant and low label)");
        }
        if (merged)
                LocalFree(merged);
        if (sd)
                LocalFree(sd);
        CloseHandle(h);
        return r;
}

int win_apply_rules(const win_rules *rules, cordon_error **ret_error)
{
        _cleanup_local_ PSID sid = NULL;
        _cleanup_local_ PSECURITY_DESCRIPTOR lsd = NULL;
        if (!ConvertStringSidToSidA(rules->sid, &sid))
                return acl_fail(ret_error, rules->sid, "ConvertStringSidToSid");
        if (!ConvertStringSecurityDescriptorToSecurityDescriptorA(WIN_LABEL_LOW, SDDL_REVISION_1, &lsd, NULL))
                return acl_fail(ret_error, WIN_LABEL_LOW, "ConvertStringSecurityDescriptorToSecurityDescriptor");
        BOOL present = FALSE, defaulted = FALSE;
        PACL label = NULL;
        if (!GetSecurityDescriptorSacl(lsd, &present, &label, &defaulted))
                return acl_fail(ret_error, WIN_LABEL_LOW, "GetSecurityDescriptorSacl");
        for (size_t i = 0; i < rules->n_rules; i++) {
                if (rules->rules[i].kind != WIN_RULE_GRANT)
                        continue;
                int r = grant_path(rules->rules[i].path, sid, label, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}
