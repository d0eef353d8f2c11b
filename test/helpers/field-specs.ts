// Field definitions (the admin route's FieldSpec) that several test tables share.

/** A select's options from [label, value] pairs. */
export const choices = (...pairs: Array<[string, string]>): Array<{ label: string; value: string }> =>
  pairs.map(([label, value]) => ({ label, value }));

/** A select of New and Won. */
export const STAGE_FIELD = {
  label: 'Stage',
  type: 'select',
  options: choices(['New', 'new'], ['Won', 'won']),
};

/** A multi_select of VIP and SMB. */
export const TAGS_FIELD = {
  label: 'Tags',
  type: 'multi_select',
  options: choices(['VIP', 'vip'], ['SMB', 'smb']),
};
